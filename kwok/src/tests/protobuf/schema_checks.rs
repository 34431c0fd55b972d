//! Consistency of the message tables themselves.

use std::collections::HashSet;

use crate::protobuf::schema::{meta_v1, Kind, Message, Shape};

fn visit(message: &'static Message, seen: &mut HashSet<usize>, out: &mut Vec<&'static Message>) {
    if !seen.insert(message as *const Message as usize) {
        return;
    }
    out.push(message);
    for field in message.fields {
        if let Kind::Msg(inner) = field.kind {
            visit(inner, seen, out);
        }
    }
}

fn all_messages() -> Vec<&'static Message> {
    let (mut seen, mut out) = (HashSet::new(), Vec::new());
    for root in all_roots() {
        visit(root, &mut seen, &mut out);
    }
    out
}

/// The JSON keys a message contributes, with inlined messages expanded.
fn json_keys(message: &Message, out: &mut Vec<&'static str>) {
    for field in message.fields {
        match (field.shape, field.kind) {
            (Shape::Inline, Kind::Msg(inner)) => json_keys(inner, out),
            _ => out.push(field.json),
        }
    }
}

/// Every message a body decodes as: each served kind's, each subresource body's, and
/// DeleteOptions.
fn all_roots() -> impl Iterator<Item = &'static Message> {
    let resources = crate::registry::RESOURCES.iter().map(|r| r.strategy);
    let bodies = crate::registry::RESOURCES
        .iter()
        .flat_map(|r| r.subresources.iter())
        .filter_map(|s| s.body);
    resources
        .chain(bodies)
        .filter_map(|s| s.protobuf())
        .chain(std::iter::once(&meta_v1::DELETE_OPTIONS))
}

#[test]
fn field_numbers_and_json_names_are_unique() {
    let messages = all_messages();
    assert!(
        messages.len() > 150,
        "{} messages reachable",
        messages.len()
    );
    for message in messages {
        let mut numbers = HashSet::new();
        for field in message.fields {
            assert!(field.number > 0, "{}", message.name);
            assert!(
                numbers.insert(field.number),
                "{} repeats field {}",
                message.name,
                field.number
            );
            assert_eq!(
                field.json.is_empty(),
                field.shape == Shape::Inline,
                "{}",
                message.name
            );
        }
        let mut keys = Vec::new();
        json_keys(message, &mut keys);
        let unique: HashSet<_> = keys.iter().collect();
        assert_eq!(
            unique.len(),
            keys.len(),
            "{} has a JSON key twice: {keys:?}",
            message.name
        );
    }
}

/// `omitempty` applies to scalars only: a struct-valued field is written whenever it was sent.
#[test]
fn only_scalars_are_omitempty() {
    for message in all_messages() {
        for field in message.fields {
            if field.shape == Shape::Opt {
                assert!(
                    matches!(
                        field.kind,
                        Kind::Str | Kind::I32 | Kind::I64 | Kind::Bool | Kind::Bytes
                    ),
                    "{}.{}",
                    message.name,
                    field.json
                );
            }
        }
    }
}
