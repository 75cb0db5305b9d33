/** The CLI's failures and output: a failure is one line on stderr and a non-zero exit code; `--json` prints the
 * result as JSON on stdout instead of the lines meant for people. */

/** Exit codes (docs/cli.md): 0 done; 1 the command failed (its reason on stderr); 2 a usage error; 3 `schema diff
 * --exit-code` found differences. */
export const EXIT = { ok: 0, failed: 1, usage: 2, differs: 3 } as const;

export class CliError extends Error {
  constructor(message: string, readonly code: number = EXIT.failed) {
    super(message);
  }
}

export interface Output {
  json: boolean;
  /** A line for people (not printed with --json). */
  say(line: string): void;
  /** The command's result: JSON with --json, else the lines `human` makes of it. */
  result(value: unknown, human: () => string[]): void;
}

export function output(json: boolean, write: (s: string) => void = (s) => process.stdout.write(s)): Output {
  return {
    json,
    say(line) { if (!json) write(`${line}\n`); },
    result(value, human) {
      if (json) write(`${JSON.stringify(value, null, 2)}\n`);
      else for (const line of human()) write(`${line}\n`);
    },
  };
}
