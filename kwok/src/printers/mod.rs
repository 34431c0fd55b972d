//! printers
