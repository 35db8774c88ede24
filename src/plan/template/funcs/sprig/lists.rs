//! Sprig's list functions. Each refuses what is not a list with Sprig's
//! own words ("Cannot find first on type map"), and none builds a list of
//! more than [`MAX_ENTRIES`](super::MAX_ENTRIES) items.

use super::super::{Call, Functions};
use super::strings::strslice;
use super::{Value, at_least, deep_equal, entries, exact, go_kind, is_empty, to_int64};

pub(super) fn add(f: &mut Functions) {
    f.insert("list", |_, a| {
        entries(a.len())?;
        Ok(Value::List(a.to_vec()))
    });
    f.insert("append", |_, a| {
        exact(a, 2)?;
        let l = items(&a[0], "Cannot push on type")?;
        entries(l.len() + 1)?;
        let mut out = l.to_vec();
        out.push(a[1].clone());
        Ok(Value::List(out))
    });
    f.insert("prepend", |_, a| {
        exact(a, 2)?;
        let l = items(&a[0], "Cannot prepend on type")?;
        entries(l.len() + 1)?;
        let mut out = Vec::with_capacity(l.len() + 1);
        out.push(a[1].clone());
        out.extend_from_slice(l);
        Ok(Value::List(out))
    });
    f.insert("concat", concat);
    f.insert("first", |_, a| {
        exact(a, 1)?;
        let l = items(&a[0], "Cannot find first on type")?;
        Ok(l.first().cloned().unwrap_or(Value::Nil))
    });
    f.insert("last", |_, a| {
        exact(a, 1)?;
        let l = items(&a[0], "Cannot find last on type")?;
        Ok(l.last().cloned().unwrap_or(Value::Nil))
    });
    f.insert("rest", |_, a| {
        exact(a, 1)?;
        let l = items(&a[0], "Cannot find rest on type")?;
        Ok(Value::List(l.get(1..).unwrap_or_default().to_vec()))
    });
    f.insert("initial", |_, a| {
        exact(a, 1)?;
        let l = items(&a[0], "Cannot find initial on type")?;
        let end = l.len().saturating_sub(1);
        Ok(Value::List(l[..end].to_vec()))
    });
    f.insert("reverse", |_, a| {
        exact(a, 1)?;
        let l = items(&a[0], "Cannot find reverse on type")?;
        Ok(Value::List(l.iter().rev().cloned().collect()))
    });
    f.insert("uniq", |_, a| {
        exact(a, 1)?;
        let l = items(&a[0], "Cannot find uniq on type")?;
        let mut out: Vec<Value> = Vec::new();
        for item in l {
            if !out.iter().any(|seen| deep_equal(seen, item)) {
                out.push(item.clone());
            }
        }
        Ok(Value::List(out))
    });
    f.insert("without", |_, a| {
        at_least(a, 1)?;
        let l = items(&a[0], "Cannot find without on type")?;
        let omit = &a[1..];
        Ok(Value::List(
            l.iter()
                .filter(|item| !omit.iter().any(|o| deep_equal(o, item)))
                .cloned()
                .collect(),
        ))
    });
    f.insert("has", |_, a| {
        exact(a, 2)?;
        if matches!(a[1], Value::Nil) {
            return Ok(Value::Bool(false));
        }
        let l = items(&a[1], "Cannot find has on type")?;
        Ok(Value::Bool(l.iter().any(|item| deep_equal(&a[0], item))))
    });
    f.insert("compact", |_, a| {
        exact(a, 1)?;
        let l = items(&a[0], "Cannot compact on type")?;
        Ok(Value::List(
            l.iter().filter(|v| !is_empty(v)).cloned().collect(),
        ))
    });
    f.insert("slice", slice);
    f.insert("sortAlpha", |_, a| {
        exact(a, 1)?;
        let mut strings = match &a[0] {
            list @ Value::List(_) => strslice(list),
            other => vec![super::strval(other)],
        };
        strings.sort();
        Ok(Value::List(
            strings.into_iter().map(Value::String).collect(),
        ))
    });
}

/// The items of a list argument, or Sprig's refusal naming the kind.
fn items<'a>(v: &'a Value, refusal: &str) -> Result<&'a [Value], String> {
    match v {
        Value::List(l) => Ok(l),
        // Sprig asks nil for its type and Go's runtime answers so.
        Value::Nil => {
            Err("runtime error: invalid memory address or nil pointer dereference".into())
        }
        other => Err(format!("{refusal} {}", go_kind(other))),
    }
}

fn concat(_: &Call, a: &[Value]) -> Result<Value, String> {
    let mut out = Vec::new();
    for list in a {
        match list {
            Value::List(l) => {
                entries(out.len() + l.len())?;
                out.extend_from_slice(l);
            }
            Value::Nil => return items(list, "").map(|_| Value::Nil),
            other => return Err(format!("Cannot concat type {} as list", go_kind(other))),
        }
    }
    // Go's `concat` of nothing is a nil slice, which prints `[]` too.
    Ok(Value::List(out))
}

/// Sprig's `slice LIST [START [END]]`, indices through `cast.ToInt`.
fn slice(_: &Call, a: &[Value]) -> Result<Value, String> {
    at_least(a, 1)?;
    let l = match &a[0] {
        Value::List(l) => l,
        Value::Nil => return items(&a[0], "").map(|_| Value::Nil),
        other => {
            return Err(format!(
                "list should be type of slice or array but {}",
                go_kind(other)
            ));
        }
    };
    if l.is_empty() {
        return Ok(Value::Nil);
    }
    let len = l.len() as i64;
    let start = a.get(1).map(to_int64).unwrap_or(0);
    let end = if a.len() < 3 { len } else { to_int64(&a[2]) };
    if start < 0 || end < start || end > len {
        return Err(format!(
            "reflect: slice index out of range [{start}:{end}] with length {len}"
        ));
    }
    Ok(Value::List(l[start as usize..end as usize].to_vec()))
}
