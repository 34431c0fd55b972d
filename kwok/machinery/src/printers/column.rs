//! `metav1.TableColumnDefinition`.

use serde_json::{json, Value};

/// One column of a Table. The API server sends every column; kubectl hides those with a non-zero
/// priority unless `-o wide`, and pairs cells with columns by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    /// OpenAPI type: `string`, `integer`, `date`...
    pub type_: &'static str,
    /// `name` on the object-name column, else empty.
    pub format: &'static str,
    pub description: &'static str,
    pub priority: i32,
}

impl Column {
    /// A priority-0 column without format.
    pub const fn new(name: &'static str, type_: &'static str, description: &'static str) -> Self {
        Self {
            name,
            type_,
            format: "",
            description,
            priority: 0,
        }
    }

    /// The `Name` column every printer starts with (`Format: "name"`).
    pub const fn name() -> Self {
        Self {
            name: "Name",
            type_: "string",
            format: "name",
            description: super::docs::OBJECT_NAME,
            priority: 0,
        }
    }

    /// The `Age` column (a string column holding `HumanDuration` text).
    pub const fn age() -> Self {
        Self::new("Age", "string", super::docs::CREATION_TIMESTAMP)
    }

    /// Marks an `-o wide` column (priority 1).
    pub const fn wide(self) -> Self {
        Self {
            priority: 1,
            ..self
        }
    }

    /// The JSON form, fields in `TableColumnDefinition` order, none omitted.
    pub fn to_json(self) -> Value {
        json!({
            "name": self.name,
            "type": self.type_,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        })
    }
}

/// `Containers`, `Images` as the pod template printer declares them...
pub const TEMPLATE_CONTAINERS: Column = Column::new(
    "Containers",
    "string",
    "Names of each container in the template.",
);
pub const TEMPLATE_IMAGES: Column = Column::new(
    "Images",
    "string",
    "Images referenced by each container in the template.",
);
/// ...and the workload printers (wide).
pub const CONTAINERS: Column = TEMPLATE_CONTAINERS.wide();
pub const IMAGES: Column = TEMPLATE_IMAGES.wide();
