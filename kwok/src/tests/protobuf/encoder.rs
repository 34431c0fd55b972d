//! A minimal protobuf encoder for building request bodies in tests, field numbers written out
//! by hand from the upstream `generated.proto` files.

/// A message under construction.
#[derive(Clone, Default)]
pub struct Pb(Vec<u8>);

impl Pb {
    pub fn new() -> Self {
        Self::default()
    }

    fn key(mut self, field: u32, wire_type: u8) -> Self {
        put_varint(&mut self.0, (u64::from(field) << 3) | u64::from(wire_type));
        self
    }

    /// A varint field (int32, int64, bool, enums); negative numbers as Go writes them.
    pub fn int(self, field: u32, value: i64) -> Self {
        let mut s = self.key(field, 0);
        put_varint(&mut s.0, value as u64);
        s
    }

    pub fn bool(self, field: u32, value: bool) -> Self {
        self.int(field, i64::from(value))
    }

    pub fn bytes(self, field: u32, value: &[u8]) -> Self {
        let mut s = self.key(field, 2);
        put_varint(&mut s.0, value.len() as u64);
        s.0.extend_from_slice(value);
        s
    }

    /// A double (fixed64 wire type, little-endian).
    pub fn double(self, field: u32, value: f64) -> Self {
        let mut s = self.key(field, 1);
        s.0.extend_from_slice(&value.to_bits().to_le_bytes());
        s
    }

    pub fn str(self, field: u32, value: &str) -> Self {
        self.bytes(field, value.as_bytes())
    }

    pub fn msg(self, field: u32, value: Pb) -> Self {
        self.bytes(field, &value.0)
    }

    /// One entry of a map<string, string>.
    pub fn entry(self, field: u32, key: &str, value: &str) -> Self {
        self.msg(field, Pb::new().str(1, key).str(2, value))
    }

    /// One entry of a map whose values are messages (Quantity, Time).
    pub fn entry_msg(self, field: u32, key: &str, value: Pb) -> Self {
        self.msg(field, Pb::new().str(1, key).msg(2, value))
    }

    /// Raw bytes appended as they are (for malformed input).
    pub fn raw(mut self, bytes: &[u8]) -> Self {
        self.0.extend_from_slice(bytes);
        self
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// `resource.Quantity`: `string string = 1`.
pub fn quantity(text: &str) -> Pb {
    Pb::new().str(1, text)
}

/// `intstr.IntOrString` holding an int: type=0, intVal=2 (gogo writes every field).
pub fn int_val(value: i64) -> Pb {
    Pb::new().int(1, 0).int(2, value).str(3, "")
}

/// `intstr.IntOrString` holding a string: type=1, strVal=3.
pub fn str_val(value: &str) -> Pb {
    Pb::new().int(1, 1).int(2, 0).str(3, value)
}

/// `metav1.Time` / `metav1.MicroTime` as a `Timestamp`.
pub fn time(seconds: i64, nanos: i64) -> Pb {
    Pb::new().int(1, seconds).int(2, nanos)
}

/// `ObjectMeta` with a name (1), an optional namespace (3) and the always-written
/// zero `creationTimestamp` (8).
pub fn meta(name: &str, namespace: &str) -> Pb {
    let m = Pb::new().str(1, name);
    let m = if namespace.is_empty() {
        m
    } else {
        m.str(3, namespace)
    };
    m.msg(8, Pb::new())
}

/// A whole request body: `k8s\0` + `runtime.Unknown{typeMeta{apiVersion, kind}, raw}`.
pub fn body(api_version: &str, kind: &str, raw: Pb) -> Vec<u8> {
    let type_meta = Pb::new().str(1, api_version).str(2, kind);
    let unknown = Pb::new()
        .msg(1, type_meta)
        .msg(2, raw)
        .str(3, "")
        .str(4, "");
    let mut out = b"k8s\0".to_vec();
    out.extend(unknown.into_bytes());
    out
}
