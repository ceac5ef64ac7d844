/**
 * npx finance-mcp [command] [options]: the dispatcher. The commands, their options and what they read
 * are listed once, in src/cli/commands.ts; `finance-mcp --help` prints them (src/cli/help.ts) and
 * src/cli/runners.ts does each one. Options are parsed by `node:util` parseArgs in strict mode from that
 * table, so an option the help does not show is refused.
 *
 * No command serves (as `npm start` does). A mistyped command or option prints the nearest name and the
 * list, with exit code 2; so does every other mistake in how a command was called.
 */
import { parseArgs } from "node:util";
import { ConfigError } from "../config.js";
import { DatabasePathError } from "../db/sqlite-file.js";
import { UserInputError } from "../auth/users.js";
import { TokenInputError, TokenQuotaError } from "../auth/tokens.js";
import { ImportError } from "../portability/import.js";
import { BackupError } from "../db/sqlite-backup.js";
import { COMMANDS, findCommand, GROUPS, type CommandSpec } from "./commands.js";
import { CommandError } from "./data-commands.js";
import { commandHelp, groupHelp, nearest, overview, version } from "./help.js";
import { RUNNERS, UsageError } from "./runners.js";

const HELP = ["--help", "-h", "help"];

/** The command nearest to a mistyped one: a two-word command first, then by its first word. */
function suggestion(words: readonly string[]): string | undefined {
  const names = COMMANDS.map((c) => c.name);
  if (words.length >= 2) {
    const two = nearest(
      `${words[0]} ${words[1]}`,
      names.filter((n) => n.includes(" ")),
    );
    if (two) return two;
  }
  const first = nearest(words[0]!, [...new Set(names.map((n) => n.split(" ")[0]!))]);
  if (!first || !GROUPS.includes(first)) return first;
  return `${first} ${names
    .filter((n) => n.startsWith(`${first} `))
    .map((n) => n.split(" ")[1])
    .join("|")}`;
}

/** A mistyped command: the nearest one, then the list. */
function unknownCommand(words: readonly string[]): UsageError {
  const typed = words.slice(0, GROUPS.includes(words[0]!) ? 2 : 1).join(" ");
  const near = suggestion(words);
  return new UsageError(
    `unknown command "${typed}".${near ? ` Did you mean "${near}"?` : ""}\nCommands: ${COMMANDS.map((c) => c.name).join(", ")}.\n` +
      "finance-mcp --help says what each does.",
  );
}

function parse(command: CommandSpec, args: string[]): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = Object.fromEntries(command.options.map((o) => [o.name, { type: o.type }]));
  try {
    return parseArgs({ args, options: { ...options, help: { type: "boolean", short: "h" } }, strict: true, allowPositionals: Boolean(command.args?.length) });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      const typed = /'(-{1,2}[^']*)'/.exec((err as Error).message)?.[1] ?? "";
      const names = command.options.map((o) => `--${o.name}`);
      const near = nearest(typed.replace(/=.*/, ""), names);
      throw new UsageError(
        `unknown option ${typed} for "${command.name}".${near ? ` Did you mean ${near}?` : ""}\n` +
          `Options of ${command.name}: ${names.length ? names.join(", ") : "none"}.\nfinance-mcp help ${command.name} says more.`,
      );
    }
    if (code?.startsWith("ERR_PARSE_ARGS")) throw new UsageError(`${(err as Error).message.split("\n")[0]}\nfinance-mcp help ${command.name} says more.`);
    throw err;
  }
}

async function run(argv: string[]): Promise<void> {
  if (argv.length === 0) return RUNNERS.serve!({ values: {}, positionals: [], args: [] });
  if (HELP.includes(argv[0]!)) {
    const rest = argv.slice(1);
    if (rest.length === 0 || HELP.includes(rest[0]!)) return void process.stdout.write(overview());
    if (rest.length === 1 && GROUPS.includes(rest[0]!)) return void process.stdout.write(groupHelp(rest[0]!));
    const found = findCommand(rest);
    if (!found) throw unknownCommand(rest);
    return void process.stdout.write(commandHelp(found.command));
  }
  if (argv[0] === "--version" || argv[0] === "-v") return void console.log(version());
  // A group with --help ("finance-mcp token --help"): its commands.
  if (GROUPS.includes(argv[0]!) && argv.length === 2 && HELP.includes(argv[1]!)) return void process.stdout.write(groupHelp(argv[0]!));
  const found = findCommand(argv);
  if (!found) {
    if (argv[0]!.startsWith("-")) {
      const near = nearest(argv[0]!, ["--help", "--version"]);
      throw new UsageError(
        `unknown option ${argv[0]}.${near ? ` Did you mean ${near}?` : ""}\nWithout a command: --help (-h), --version (-v). Commands: ${COMMANDS.map((c) => c.name).join(", ")}.`,
      );
    }
    throw unknownCommand(argv);
  }
  const args = argv.slice(found.words);
  const { values, positionals } = parse(found.command, args);
  if (values.help) return void process.stdout.write(commandHelp(found.command));
  for (const o of found.command.options)
    if (o.required && (values[o.name] === undefined || values[o.name] === ""))
      throw new UsageError(`--${o.name} is required (finance-mcp help ${found.command.name})`);
  const missing = (found.command.args ?? []).find((a, i) => a.required && positionals[i] === undefined);
  if (missing) throw new UsageError(`${missing.name} is required: ${found.command.example}`);
  if (found.command.name === "help") return void process.stdout.write(overview());
  await RUNNERS[found.command.name]!({ values, positionals, args });
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (
    err instanceof UsageError ||
    err instanceof CommandError ||
    err instanceof ImportError ||
    err instanceof BackupError ||
    err instanceof ConfigError ||
    err instanceof DatabasePathError ||
    err instanceof UserInputError ||
    err instanceof TokenInputError ||
    err instanceof TokenQuotaError
  ) {
    console.error(`finance-mcp: ${err.message}`);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
