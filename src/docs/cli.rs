//! The CLI reference, from the binary's clap command.

use std::fmt::Write as _;

use super::text::{header, inline};

/// Every command and flag of `command` (the binary's, from
/// `<Cli as clap::CommandFactory>::command()`): its help, environment
/// variable and default. Hidden ones are left out.
pub fn cli(command: &clap::Command) -> String {
    let mut out = header("Command line");
    let _ = writeln!(
        out,
        "`{}`: {}. Flags may also be set by the environment variables named; \
         a flag given wins over its variable.",
        command.get_name(),
        command
            .get_about()
            .map(|a| a.to_string())
            .unwrap_or_default()
    );
    section(&mut out, command, command.get_name(), true);
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let path = format!("{} {}", command.get_name(), sub.get_name());
        section(&mut out, sub, &path, false);
    }
    out
}

fn section(out: &mut String, command: &clap::Command, path: &str, root: bool) {
    let _ = writeln!(out, "\n## `{path}`\n");
    let about = command
        .get_long_about()
        .or(command.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default();
    if !root && !about.is_empty() {
        let about = about.trim_end().trim_end_matches('.');
        let _ = writeln!(out, "{}.\n", inline(about));
    }
    let args: Vec<&clap::Arg> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
        .collect();
    if args.is_empty() {
        out.push_str("No flags of its own.\n");
        return;
    }
    if root {
        out.push_str(
            "Without a subcommand: the console, or the headless engine with `--reconcile`. \
             Flags marked global apply to the subcommands as well.\n\n",
        );
    }
    out.push_str("| flag | environment | default | what it does |\n|---|---|---|---|\n");
    for arg in args {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            flag(arg),
            arg.get_env()
                .map_or("—".to_string(), |e| format!("`{}`", e.to_string_lossy())),
            default(arg),
            help(arg)
        );
    }
}

/// `-n, --namespace <NAMESPACE>`, or `<SHELL>` for a positional.
fn flag(arg: &clap::Arg) -> String {
    let value = arg
        .get_value_names()
        .and_then(|v| v.first().map(|n| n.to_string()))
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    if arg.is_positional() {
        return format!("`<{value}>`");
    }
    let takes_value = arg.get_num_args().is_none_or(|n| n.takes_values())
        && !matches!(
            arg.get_action(),
            clap::ArgAction::SetTrue | clap::ArgAction::SetFalse | clap::ArgAction::Count
        );
    let mut names = Vec::new();
    if let Some(short) = arg.get_short() {
        names.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        names.push(format!("--{long}"));
    }
    let mut text = names.join(", ");
    if takes_value {
        let _ = write!(text, " <{value}>");
    }
    format!("`{text}`")
}

fn default(arg: &clap::Arg) -> String {
    let values: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .filter(|v| !v.is_empty())
        .collect();
    let boolean = matches!(
        arg.get_action(),
        clap::ArgAction::SetTrue | clap::ArgAction::SetFalse
    );
    if values.is_empty() || arg.is_hide_default_value_set() || boolean {
        "—".to_string()
    } else {
        format!("`{}`", values.join(","))
    }
}

fn help(arg: &clap::Arg) -> String {
    let text = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let text = text.trim_end();
    let mut text = if text.is_empty() || text.ends_with('.') {
        text.to_string()
    } else {
        format!("{text}.")
    };
    if arg.is_global_set() {
        text.push_str(" Global.");
    }
    inline(&text)
}
