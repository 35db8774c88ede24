//! Sprig's dictionary functions. Go's `set`, `unset` and `merge` change
//! the map they are given and return it; here they return the changed
//! copy, which is what every template then uses. Go lists a map's `keys`
//! and `values` in random order; here they come in key order.

use super::super::{Call, Functions};
use super::{
    MAX_DEPTH, Map, Value, at_least, entries, exact, go_type, is_empty, map, string, strval,
};

pub(super) fn add(f: &mut Functions) {
    f.insert("dict", |_, a| {
        entries(a.len().div_ceil(2))?;
        let mut out = Map::new();
        for pair in a.chunks(2) {
            let value = pair.get(1).cloned().unwrap_or(Value::String(String::new()));
            out.insert(strval(&pair[0]), value);
        }
        Ok(Value::Map(out))
    });
    f.insert("get", |_, a| {
        exact(a, 2)?;
        let (d, key) = (map(&a[0])?, string(&a[1])?);
        Ok(d.get(key).cloned().unwrap_or(Value::String(String::new())))
    });
    f.insert("set", |_, a| {
        exact(a, 3)?;
        let key = string(&a[1])?;
        let Value::Map(d) = &a[0] else {
            return match &a[0] {
                Value::Nil => Err("assignment to entry in nil map".into()),
                _ => map(&a[0]).map(|_| Value::Nil),
            };
        };
        let mut d = d.clone();
        d.insert(key.to_string(), a[2].clone());
        entries(d.len())?;
        Ok(Value::Map(d))
    });
    f.insert("unset", |_, a| {
        exact(a, 2)?;
        let (d, key) = (map(&a[0])?, string(&a[1])?);
        let mut d = d.into_owned();
        d.remove(key);
        Ok(Value::Map(d))
    });
    f.insert("hasKey", |_, a| {
        exact(a, 2)?;
        let (d, key) = (map(&a[0])?, string(&a[1])?);
        Ok(Value::Bool(d.contains_key(key)))
    });
    f.insert("keys", |_, a| {
        let mut out = Vec::new();
        for d in a {
            out.extend(map(d)?.keys().cloned().map(Value::String));
            entries(out.len())?;
        }
        Ok(Value::List(out))
    });
    f.insert("values", |_, a| {
        exact(a, 1)?;
        Ok(Value::List(map(&a[0])?.values().cloned().collect()))
    });
    f.insert("pluck", |_, a| {
        at_least(a, 1)?;
        let key = string(&a[0])?;
        let mut out = Vec::new();
        for d in &a[1..] {
            if let Some(v) = map(d)?.get(key) {
                out.push(v.clone());
            }
        }
        Ok(Value::List(out))
    });
    f.insert("pick", |_, a| {
        at_least(a, 1)?;
        let d = map(&a[0])?;
        let mut out = Map::new();
        for key in &a[1..] {
            let key = string(key)?;
            if let Some(v) = d.get(key) {
                out.insert(key.to_string(), v.clone());
            }
        }
        Ok(Value::Map(out))
    });
    f.insert("omit", |_, a| {
        at_least(a, 1)?;
        let mut d = map(&a[0])?.into_owned();
        for key in &a[1..] {
            d.remove(string(key)?);
        }
        Ok(Value::Map(d))
    });
    f.insert("merge", |c, a| merge(c, a, false));
    f.insert("mergeOverwrite", |c, a| merge(c, a, true));
    f.insert("dig", dig);
    f.insert("deepCopy", |_, a| {
        exact(a, 1)?;
        Ok(a[0].clone())
    });
}

/// `merge DST SRC…` as mergo merges maps: a key missing or empty in the
/// destination takes the source's value, two maps merge deeply, a nil
/// source value is skipped; with `overwrite` every source value wins, nil
/// included.
fn merge(_: &Call, a: &[Value], overwrite: bool) -> Result<Value, String> {
    at_least(a, 1)?;
    let mut dst = map(&a[0])?.into_owned();
    for src in &a[1..] {
        merge_into(&mut dst, &*map(src)?, overwrite, 0)?;
    }
    entries(dst.len())?;
    Ok(Value::Map(dst))
}

fn merge_into(dst: &mut Map, src: &Map, overwrite: bool, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("maps nested deeper than {MAX_DEPTH}"));
    }
    for (key, value) in src {
        if matches!(value, Value::Nil) {
            if overwrite {
                dst.insert(key.clone(), Value::Nil);
            }
            continue;
        }
        match (dst.get_mut(key), value) {
            (Some(Value::Map(inner)), Value::Map(from)) => {
                merge_into(inner, from, overwrite, depth + 1)?;
            }
            (Some(existing), _) if !is_empty(existing) && !overwrite => {}
            _ => {
                dst.insert(key.clone(), value.clone());
            }
        }
        entries(dst.len())?;
    }
    Ok(())
}

/// `dig KEY… DEFAULT DICT`: the value at the path of keys, or the default
/// when a key is missing.
fn dig(_: &Call, a: &[Value]) -> Result<Value, String> {
    if a.len() < 3 {
        return Err("dig needs at least three arguments".into());
    }
    let not_a = |v: &Value, want: &str| {
        format!(
            "interface conversion: interface {{}} is {}, not {want}",
            match v {
                Value::Nil => "nil",
                v => go_type(v),
            }
        )
    };
    let (keys, rest) = a.split_at(a.len() - 2);
    let default = &rest[0];
    let Value::Map(first) = &rest[1] else {
        return Err(not_a(&rest[1], "map[string]interface {}"));
    };
    let keys: Vec<&str> = keys
        .iter()
        .map(|k| match k {
            Value::String(s) => Ok(s.as_str()),
            other => Err(not_a(other, "string")),
        })
        .collect::<Result<_, _>>()?;
    let mut at = first;
    for (i, key) in keys.iter().enumerate() {
        let Some(step) = at.get(*key) else {
            return Ok(default.clone());
        };
        if i + 1 == keys.len() {
            return Ok(step.clone());
        }
        match step {
            Value::Map(next) => at = next,
            other => return Err(not_a(other, "map[string]interface {}")),
        }
    }
    Ok(default.clone())
}
