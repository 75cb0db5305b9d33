/** `svc`, the operator's command line (docs/cli.md): schema as code, migrations, users, import and export, and a
 * check of the configuration. Each command works on this configuration's database (DATABASE_URL, or the embedded
 * engine's DATA_DIR) or, with --url and --token, on a running server. */
import { Command, CommanderError, Option } from 'commander';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { openDatabase } from '../../core/db/database.ts';
import { loadConfig } from '../../core/config.ts';
import { doctorCommand } from './doctor.ts';
import { CliError, EXIT, output, type Output } from './output.ts';
import { applyCommand, diffCommand, snapshotCommand } from './schema-commands.ts';
import { localTarget, remoteTarget, type Target } from './target.ts';
import { exportCommand, importCommand } from './transfer-commands.ts';
import { createUser, listUsers, setPassword } from './users-commands.ts';

interface Globals { url?: string; token?: string; json?: boolean }

async function withTarget(program: Command, fn: (target: Target, out: Output) => Promise<number | void>): Promise<number> {
  const g = program.opts<Globals>();
  const out = output(Boolean(g.json));
  let target: Target;
  if (g.url) {
    if (!g.token) throw new CliError('--url needs --token (or SVC_TOKEN): an admin\'s static token', EXIT.usage);
    target = remoteTarget(g.url, g.token);
  } else {
    target = await localTarget();
  }
  try {
    return (await fn(target, out)) ?? EXIT.ok;
  } finally {
    await target.close();
  }
}

export function buildProgram(): { program: Command; run: (argv: string[]) => Promise<number> } {
  let code: number = EXIT.ok;
  const program = new Command('svc')
    .description('Operate a svc content service: schema as code, migrations, users, import/export, checks.')
    .addOption(new Option('--url <url>', 'work on the server at this address instead of the local database').env('SVC_URL'))
    .addOption(new Option('--token <token>', 'static token of an admin (with --url)').env('SVC_TOKEN'))
    .option('--json', 'print the result as JSON')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const act = (fn: (...args: any[]) => Promise<number | void>) => async (...args: any[]) => { code = (await fn(...args)) ?? EXIT.ok; };

  const schema = program.command('schema').description('the schema (collections, fields, relations) as a file').exitOverride();
  schema.command('snapshot').argument('[file]', 'where to write it (.yaml/.yml or .json); standard output when left out')
    .option('--format <format>', 'yaml or json (default: from the file name, else yaml)')
    .option('--include <sections>', 'configuration sections too: roles,policies,access,permissions,... or all (docs/schema-as-code.md)')
    .description('write the schema (and, with --include, configuration) to a file')
    .action(act((file: string | undefined, o) => withTarget(program, (t, out) => snapshotCommand(t, out, file, o))));
  schema.command('diff').argument('<file>', 'a snapshot (.yaml/.yml or .json)')
    .option('--force', 'compare a snapshot of another version or vendor anyway')
    .option('--exit-code', 'exit with 3 when there are differences (for CI)')
    .description('show what applying the file would change')
    .action(act((file: string, o) => withTarget(program, (t, out) => diffCommand(t, out, file, o))));
  schema.command('apply').argument('<file>', 'a snapshot (.yaml/.yml or .json)')
    .option('-y, --yes', 'apply without asking')
    .option('--allow-destructive', 'also drop collections and fields, and narrow types (data is lost)')
    .option('--dry-run', 'print the steps and the SQL, change nothing')
    .option('--force', 'apply a snapshot of another version or vendor anyway')
    .description('bring the schema to the file, in one transaction')
    .action(act((file: string, o) => withTarget(program, (t, out) => applyCommand(t, out, file, o))));

  program.command('migrate').description('run the pending migrations of the database (local only)')
    .action(act(async () => {
      const g = program.opts<Globals>();
      if (g.url) throw new CliError('migrate works on the database, not a server: a server runs its migrations as it starts', EXIT.usage);
      const out = output(Boolean(g.json));
      const config = loadConfig();
      const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, wasmCompiler: config.pgliteWasmCompiler });
      try {
        const ran = await migrateToLatest(database);
        out.result({ ran }, () => (ran.length ? [`Ran ${ran.length} migrations:`, ...ran.map((m) => `  ${m}`)] : ['No pending migrations: the database is current.']));
      } finally {
        await database.close();
      }
    }));

  const users = program.command('users').description('the accounts of the service').exitOverride();
  users.command('list').description('list the users').action(act(() => withTarget(program, (t, out) => listUsers(t, out))));
  users.command('create').argument('<email>').description('create an active user')
    .addOption(new Option('--password <password>', 'its password').env('SVC_PASSWORD'))
    .option('--role <role>', 'the role, by name or id')
    .option('--first-name <name>').option('--last-name <name>')
    .action(act((email: string, o) => withTarget(program, (t, out) => createUser(t, out, email, o))));
  users.command('passwd').argument('<email>').description("set a user's password")
    .addOption(new Option('--password <password>', 'the new password').env('SVC_PASSWORD'))
    .action(act((email: string, o) => withTarget(program, (t, out) => setPassword(t, out, email, o))));

  program.command('export').argument('<collection>').argument('[file]', 'where to write (.csv or .json); standard output when left out')
    .option('--format <format>', 'csv or json (default: from the file name, else json)')
    .description('export the items of a collection')
    .action(act((collection: string, file: string | undefined, o) => withTarget(program, (t, out) => exportCommand(t, out, collection, file, o))));
  program.command('import').argument('<collection>').argument('<file>', 'a .csv file or a .json array of objects')
    .option('--format <format>', 'csv or json (default: from the file name)')
    .option('--resume', 'go on after the items an earlier run of this import committed')
    .option('--restart', 'import the whole file again, forgetting an earlier run')
    .option('--batch-size <n>', 'items per transaction (default 500)')
    .description('import items, in batches that a stopped run resumes from')
    .action(act((collection: string, file: string, o) => withTarget(program, (t, out) => importCommand(t, out, collection, file, o))));

  program.command('doctor').description('check the configuration, database, Redis, storage, queue and mail')
    .action(act(() => doctorCommand(output(Boolean(program.opts<Globals>().json)))));

  return {
    program,
    async run(argv) {
      code = EXIT.ok;
      try {
        await program.parseAsync(argv, { from: 'user' });
        return code;
      } catch (err) {
        if (err instanceof CommanderError) {
          // --help and --version end here too (exit code 0); a usage error has been printed by commander.
          return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
        }
        if (err instanceof CliError) {
          process.stderr.write(`svc: ${err.message}\n`);
          return err.code;
        }
        process.stderr.write(`svc: ${(err as Error).message ?? String(err)}\n`);
        return EXIT.failed;
      }
    },
  };
}
