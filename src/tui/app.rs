//! The old paths of the console's state, for the code around the loop
//! until it names the defining files (`crate::tui::state`,
//! `crate::tui::model`) itself. Nothing under `state`, `model`, `layout` or
//! `views` imports from here.

pub use crate::tui::model::key::{Kind, ObjKey};
pub use crate::tui::model::snapshot::Snapshot;
pub use crate::tui::state::app::{App, Command, Engine, Input, Modal, Msg, Target};
pub use crate::tui::state::flash::{Flash, FlashLevel};
pub use crate::tui::state::update;
pub use crate::tui::state::view::{Screen, View};
