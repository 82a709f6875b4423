//! Request bodies read by JSON Schema's rules rather than serde's looser ones, so that the
//! server accepts exactly what the OpenAPI document describes:
//! - an object type accepts only a JSON object: serde's derived `Deserialize` also takes an
//!   array of the fields in order (`[null, null]` as a triage), which the document forbids;
//! - an integer type also accepts a number with a zero fraction (`3.0`), which JSON Schema
//!   counts as an integer and serde refuses;
//! - no string may hold U+0000: PostgreSQL's text cannot store it (the insert fails, which
//!   would be a 5xx), so both databases refuse it up front with the same 422.
//!
//! [`StrictValue`] wraps a parsed [`Value`] and hands each part to the type's `Deserialize`
//! under these two rules; everything else is `serde_json`'s own.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// A parsed JSON value deserialized with JSON Schema's object and integer rules.
pub struct StrictValue<'a>(pub &'a Value);

type Error = serde_json::Error;

/// Why a string with U+0000 is refused.
pub const NUL_REFUSED: &str = "text must not contain U+0000 (NUL): PostgreSQL cannot store it";

/// `n` as an integer when it is one by JSON Schema (a float with no fraction, in range).
fn whole(n: &Number) -> Option<Value> {
    let f = n.as_f64().filter(|_| n.is_f64())?;
    // 2^63 and 2^64 are exact in f64; the ranges are half-open so `as` never saturates.
    if f.fract() != 0.0 {
        None
    } else if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        Some(Value::from(f as i64))
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
        Some(Value::from(f as u64))
    } else {
        None
    }
}

impl<'de> Deserializer<'de> for StrictValue<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visitor.visit_seq(Seq(items.iter())),
            Value::Object(map) => visitor.visit_map(Fields {
                iter: map.iter(),
                value: None,
            }),
            Value::String(s) if s.contains('\0') => Err(de::Error::custom(NUL_REFUSED)),
            scalar => scalar.deserialize_any(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(_) => self.deserialize_any(visitor),
            other => other.deserialize_struct(name, fields, ExpectObject(visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.integer(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i128 u8 u16 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

impl<'de> StrictValue<'de> {
    /// An integer field: a float with no fraction reads as the integer it equals.
    fn integer<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Number(n) => match whole(n) {
                Some(i) => i.deserialize_any(visitor),
                None => self.0.deserialize_any(visitor),
            },
            other => other.deserialize_any(visitor),
        }
    }
}

/// Refuses an array (or anything else) where an object is wanted, naming the object.
struct ExpectObject<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for ExpectObject<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<V::Value, A::Error> {
        Err(de::Error::invalid_type(de::Unexpected::Seq, &self))
    }
}

/// The items of an array, each read strictly.
struct Seq<'a>(std::slice::Iter<'a, Value>);

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|v| seed.deserialize(StrictValue(v)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// The fields of an object, each value read strictly.
struct Fields<'a> {
    iter: serde_json::map::Iter<'a>,
    value: Option<&'a Value>,
}

impl<'de> MapAccess<'de> for Fields<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let value = self
            .value
            .take()
            .ok_or_else(|| <Error as de::Error>::custom("a value without its key"))?;
        seed.deserialize(StrictValue(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        n: Option<i64>,
        c: u64,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        items: Vec<Inner>,
        name: String,
    }

    fn read<T: for<'de> Deserialize<'de>>(v: Value) -> Result<T, Error> {
        T::deserialize(StrictValue(&v))
    }

    #[test]
    fn objects_only_as_objects() {
        let ok: Outer =
            read(serde_json::json!({"items": [{"n": null, "c": 1}], "name": "x"})).unwrap();
        assert_eq!(ok.items[0], Inner { n: None, c: 1 });
        // serde alone takes both of these.
        assert!(read::<Outer>(serde_json::json!([[], "x"])).is_err());
        assert!(read::<Outer>(serde_json::json!({"items": [[null, 1]], "name": "x"})).is_err());
        assert!(serde_json::from_value::<Outer>(serde_json::json!([[[null, 1]], "x"])).is_ok());
    }

    #[test]
    fn whole_floats_are_integers() {
        let v: Inner = read(serde_json::json!({"n": 3.0, "c": 1e3})).unwrap();
        assert_eq!(
            v,
            Inner {
                n: Some(3),
                c: 1000
            }
        );
        assert!(read::<Inner>(serde_json::json!({"n": 3.5, "c": 1})).is_err());
        assert!(read::<Inner>(serde_json::json!({"n": 1, "c": -1.0})).is_err());
        assert!(
            read::<Inner>(serde_json::json!({"n": 9.3e18, "c": 1})).is_err(),
            "past i64"
        );
        assert!(read::<Inner>(serde_json::json!({"n": "3", "c": 1})).is_err());
    }

    #[test]
    fn no_nul_in_text() {
        let e = read::<Outer>(serde_json::json!({"items": [], "name": "a\0b"})).unwrap_err();
        assert!(e.to_string().contains("U+0000"), "{e}");
    }
}
