//! Sprig's arithmetic: the integer functions convert every argument with
//! `cast.ToInt64` (`mul 2 0.5` is 0, `atoi "x"` is 0), the `…f` ones work
//! in decimal as Sprig's `shopspring/decimal` does (`addf 0.1 0.2` is
//! 0.3, `divf 2 3` is rounded to 16 places). Division by zero is an error.

use super::super::{Call, Functions};
use super::{Value, at_least, entries, exact, int, parse_go_int, string, to_float64, to_int64};

pub(super) fn add(f: &mut Functions) {
    f.insert("add", |_, a| {
        Ok(Value::Int(
            a.iter().map(to_int64).fold(0, i64::wrapping_add),
        ))
    });
    f.insert("add1", |_, a| {
        exact(a, 1)?;
        Ok(Value::Int(to_int64(&a[0]).wrapping_add(1)))
    });
    f.insert("sub", |_, a| {
        exact(a, 2)?;
        Ok(Value::Int(to_int64(&a[0]).wrapping_sub(to_int64(&a[1]))))
    });
    f.insert("mul", |_, a| {
        at_least(a, 1)?;
        Ok(Value::Int(
            a.iter().map(to_int64).fold(1, i64::wrapping_mul),
        ))
    });
    f.insert("div", |_, a| {
        exact(a, 2)?;
        let (x, y) = (to_int64(&a[0]), to_int64(&a[1]));
        if y == 0 {
            return Err("runtime error: integer divide by zero".into());
        }
        Ok(Value::Int(x.wrapping_div(y)))
    });
    f.insert("mod", |_, a| {
        exact(a, 2)?;
        let (x, y) = (to_int64(&a[0]), to_int64(&a[1]));
        if y == 0 {
            return Err("runtime error: integer divide by zero".into());
        }
        Ok(Value::Int(x.wrapping_rem(y)))
    });
    f.insert("max", |_, a| {
        at_least(a, 1)?;
        Ok(Value::Int(a.iter().map(to_int64).fold(i64::MIN, i64::max)))
    });
    f.insert("min", |_, a| {
        at_least(a, 1)?;
        Ok(Value::Int(a.iter().map(to_int64).fold(i64::MAX, i64::min)))
    });
    f.insert("floor", |_, a| {
        exact(a, 1)?;
        Ok(Value::Float(to_float64(&a[0]).floor()))
    });
    f.insert("ceil", |_, a| {
        exact(a, 1)?;
        Ok(Value::Float(to_float64(&a[0]).ceil()))
    });
    f.insert("round", round);
    // Sprig's `int` and `atoi` give Go's `int`, the others `int64`.
    f.insert("int", |_, a| {
        exact(a, 1)?;
        Ok(Value::GoInt(to_int64(&a[0])))
    });
    f.insert("int64", |_, a| {
        exact(a, 1)?;
        Ok(Value::Int(to_int64(&a[0])))
    });
    f.insert("float64", |_, a| {
        exact(a, 1)?;
        Ok(Value::Float(to_float64(&a[0])))
    });
    f.insert("atoi", |_, a| {
        exact(a, 1)?;
        Ok(Value::GoInt(atoi(string(&a[0])?)))
    });
    f.insert("addf", |_, a| decimal_fold(Some(Decimal::ZERO), a, Op::Add));
    f.insert("subf", |_, a| decimal_fold(None, a, Op::Sub));
    f.insert("mulf", |_, a| decimal_fold(None, a, Op::Mul));
    f.insert("divf", |_, a| decimal_fold(None, a, Op::Div));
    f.insert("until", |_, a| {
        exact(a, 1)?;
        let count = int(&a[0])?;
        let list = until_step(0, count, if count < 0 { -1 } else { 1 })?;
        Ok(Value::List(list.into_iter().map(Value::GoInt).collect()))
    });
    f.insert("untilStep", |_, a| {
        exact(a, 3)?;
        let list = until_step(int(&a[0])?, int(&a[1])?, int(&a[2])?)?;
        Ok(Value::List(list.into_iter().map(Value::GoInt).collect()))
    });
    f.insert("seq", seq);
}

/// `strconv.Atoi`, its error read as 0.
fn atoi(s: &str) -> i64 {
    // Atoi takes decimal digits with a sign only, no base prefix.
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return 0;
    }
    let trimmed = digits.trim_start_matches('0');
    let canonical = if s.starts_with('-') {
        format!("-{}", if trimmed.is_empty() { "0" } else { trimmed })
    } else if trimmed.is_empty() {
        "0".into()
    } else {
        trimmed.into()
    };
    parse_go_int(&canonical).unwrap_or(0)
}

/// Sprig's `round X PLACES [HALF]`: rounds up from `HALF` (0.5) of the
/// last place on.
fn round(_: &Call, a: &[Value]) -> Result<Value, String> {
    at_least(a, 2)?;
    let places = int(&a[1])? as f64;
    let round_on = match a.get(2) {
        Some(Value::Float(f)) => *f,
        Some(Value::Int(i) | Value::GoInt(i)) => *i as f64,
        Some(other) => return Err(super::wrong_type(other, "float64")),
        None => 0.5,
    };
    let pow = 10f64.powf(places);
    let digit = pow * to_float64(&a[0]);
    let fraction = digit - digit.trunc();
    let rounded = if fraction >= round_on {
        digit.ceil()
    } else {
        digit.floor()
    };
    Ok(Value::Float(rounded / pow))
}

/// Sprig's `untilStep`: from `start` towards `stop` by `step`, bounded.
fn until_step(start: i64, stop: i64, step: i64) -> Result<Vec<i64>, String> {
    let (start, stop, step) = (i128::from(start), i128::from(stop), i128::from(step));
    let count = if stop < start {
        if step >= 0 {
            0
        } else {
            (start - stop + (-step) - 1) / (-step)
        }
    } else if step <= 0 {
        0
    } else {
        (stop - start + step - 1) / step
    };
    entries(usize::try_from(count).unwrap_or(usize::MAX))?;
    Ok((0..count).map(|i| (start + i * step) as i64).collect())
}

/// Sprig's `seq`: like the shell's, `1 2 3` as one string.
fn seq(call: &Call, a: &[Value]) -> Result<Value, String> {
    let params: Vec<i64> = a.iter().map(int).collect::<Result<_, _>>()?;
    let list = match params.as_slice() {
        [end] => {
            let inc = if *end < 1 { -1 } else { 1 };
            until_step(1, end.saturating_add(inc), inc)?
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            until_step(*start, end.saturating_add(step), step)?
        }
        [start, step, end] => {
            let inc = if end < start { -1 } else { 1 };
            if end < start && *step > 0 {
                Vec::new()
            } else {
                until_step(*start, end.saturating_add(inc), *step)?
            }
        }
        _ => Vec::new(),
    };
    let text = list
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(" ");
    super::fits(call, text.len())?;
    Ok(Value::String(text))
}

/// A decimal number `mantissa × 10^exponent`, enough of shopspring's
/// `Decimal` for the four operations on values that came from floats.
#[derive(Clone, Copy)]
struct Decimal {
    mantissa: i128,
    exponent: i32,
}

/// How many decimal places `divf` keeps, as shopspring's
/// `DivisionPrecision`.
const DIVISION_PLACES: i32 = 16;

impl Decimal {
    const ZERO: Decimal = Decimal {
        mantissa: 0,
        exponent: 0,
    };

    /// `decimal.NewFromFloat`: the shortest decimal that reads back as `f`.
    fn from_f64(f: f64) -> Result<Decimal, String> {
        if !f.is_finite() {
            return Err(format!(
                "Cannot create a Decimal from {}",
                super::float_text(f)
            ));
        }
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        let fraction_digits = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
        let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
        Ok(Decimal {
            mantissa: digits.parse().unwrap_or(0),
            exponent: exponent - fraction_digits,
        })
    }

    /// The nearest float, as `Decimal.Float64`.
    fn to_f64(self) -> f64 {
        format!("{}e{}", self.mantissa, self.exponent)
            .parse()
            .unwrap_or(f64::NAN)
    }

    /// `self.mantissa` scaled to `exponent` (not above its own).
    fn scaled(self, exponent: i32) -> Option<i128> {
        let shift = u32::try_from(self.exponent.checked_sub(exponent)?).ok()?;
        self.mantissa.checked_mul(10i128.checked_pow(shift)?)
    }

    fn add(self, other: Decimal) -> Option<Decimal> {
        let exponent = self.exponent.min(other.exponent);
        Some(Decimal {
            mantissa: self
                .scaled(exponent)?
                .checked_add(other.scaled(exponent)?)?,
            exponent,
        })
    }

    fn sub(self, other: Decimal) -> Option<Decimal> {
        self.add(Decimal {
            mantissa: other.mantissa.checked_neg()?,
            exponent: other.exponent,
        })
    }

    fn mul(self, other: Decimal) -> Option<Decimal> {
        Some(Decimal {
            mantissa: self.mantissa.checked_mul(other.mantissa)?,
            exponent: self.exponent.checked_add(other.exponent)?,
        })
    }

    /// Truncated to [`DIVISION_PLACES`] places, then rounded half away
    /// from zero on the remainder, as `DivRound`.
    fn div(self, other: Decimal) -> Option<Decimal> {
        // self / other × 10^places = m1 × 10^(e1 − e2 + places) / m2.
        let shift = self.exponent - other.exponent + DIVISION_PLACES;
        let (numerator, denominator) = if shift >= 0 {
            (
                self.mantissa
                    .checked_mul(10i128.checked_pow(shift as u32)?)?,
                other.mantissa,
            )
        } else {
            (
                self.mantissa,
                other
                    .mantissa
                    .checked_mul(10i128.checked_pow(shift.unsigned_abs())?)?,
            )
        };
        let mut quotient = numerator / denominator;
        let remainder = numerator % denominator;
        if remainder.unsigned_abs().checked_mul(2)? >= denominator.unsigned_abs() {
            quotient += if (numerator < 0) != (denominator < 0) {
                -1
            } else {
                1
            };
        }
        Some(Decimal {
            mantissa: quotient,
            exponent: -DIVISION_PLACES,
        })
    }
}

/// The operation of `addf`, `subf`, `mulf` or `divf`.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

impl Op {
    fn exact(self, x: Decimal, y: Decimal) -> Option<Decimal> {
        match self {
            Op::Add => x.add(y),
            Op::Sub => x.sub(y),
            Op::Mul => x.mul(y),
            Op::Div => x.div(y),
        }
    }

    fn float(self, x: f64, y: f64) -> f64 {
        match self {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
            Op::Div => x / y,
        }
    }
}

/// `addf`, `subf`, `mulf`, `divf`: the first argument (or `start`) then
/// each other one through `op`. A result past the 128 bits kept here is
/// computed in floats instead.
fn decimal_fold(start: Option<Decimal>, a: &[Value], op: Op) -> Result<Value, String> {
    let (first, rest) = match start {
        Some(d) => (d, a),
        None => {
            at_least(a, 1)?;
            (Decimal::from_f64(to_float64(&a[0]))?, &a[1..])
        }
    };
    let mut acc = first;
    let mut float = None::<f64>;
    for v in rest {
        let x = Decimal::from_f64(to_float64(v))?;
        if x.mantissa == 0 && op == Op::Div {
            return Err("decimal division by 0".into());
        }
        match float {
            Some(f) => float = Some(op.float(f, x.to_f64())),
            None => match op.exact(acc, x) {
                Some(d) => acc = d,
                None => float = Some(op.float(acc.to_f64(), x.to_f64())),
            },
        }
    }
    Ok(Value::Float(float.unwrap_or_else(|| acc.to_f64())))
}
