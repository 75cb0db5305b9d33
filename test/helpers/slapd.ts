/** A real OpenLDAP server (Debian's slapd) for the LDAP sign-on tests: a slapd.conf-style configuration in a
 * temporary directory (mdb backend, the ppolicy overlay with a default lockout policy, a self-signed certificate
 * for ldaps:// and StartTLS), seeded with slapadd before start, listening on free 127.0.0.1 ports. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';
const MODULES = '/usr/lib/ldap';
const SCHEMAS = '/etc/ldap/schema';

export const BASE_DN = 'dc=example,dc=org';
const PEOPLE = `ou=people,${BASE_DN}`;
const GROUPS = `ou=groups,${BASE_DN}`;

export interface SlapdUser { uid: string; dn: string; password: string; mail: string; givenName: string; sn: string }

export interface TestSlapd {
  /** ldap:// (plain, StartTLS offered). */
  url: string;
  /** ldaps:// with the self-signed certificate of `caPem`. */
  ldapsUrl: string;
  /** The certificate (self-signed, so also its CA) for 127.0.0.1 / localhost. */
  caPem: string;
  baseDn: string;
  peopleDn: string;
  groupsDn: string;
  /** The read-only service account (reads people, groups and their lock attributes). */
  bindDn: string;
  bindPassword: string;
  /** The rootdn: bypasses every ACL; for the tests' own inspection and changes. */
  rootDn: string;
  rootPassword: string;
  /** alice: group editors. bob: group admins. carol: permanently locked (pwdAccountLockedTime 000001010000Z).
   * dave: no group; the tests lock him with wrong passwords. erin: an AD-style disabled account
   * (userAccountControl 514). smith: uid "smith, jr" (a comma to escape in DNs and filters), group editors. */
  users: Record<'alice' | 'bob' | 'carol' | 'dave' | 'erin' | 'smith', SlapdUser>;
  /** slapd's stderr so far (debug level stats: one line per operation). */
  log(): string;
  stop(): Promise<void>;
}

/** Whether this machine can run the tests' slapd (slapd, slapadd and openssl present). */
export function hasSlapd(): boolean {
  return existsSync(SLAPD) && existsSync(SLAPADD) && existsSync(join(MODULES, 'ppolicy.so'))
    && spawnSync('openssl', ['version']).status === 0;
}

/** Why the LDAP tests cannot run here, or null. In CI (env CI=true) a missing slapd is an error, not a skip. */
export function slapdSkipReason(): string | null {
  if (hasSlapd()) return null;
  const reason = 'slapd, slapadd or openssl missing (apt-get install slapd openssl)';
  if (process.env.CI === 'true') throw new Error(`CI: ${reason}`);
  return reason;
}

/** {SSHA} as slappasswd writes it: base64(sha1(password + salt) + salt). */
function ssha(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password).update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}

// A stand-in for Active Directory's userAccountControl (its real OID) on an auxiliary class of OpenLDAP's
// experimental arc, so the AD "account disabled" bit can be tested against this server.
const AD_SCHEMA = `attributetype ( 1.2.840.113556.1.4.8 NAME 'userAccountControl'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
objectclass ( 1.3.6.1.4.1.4203.666.11.999.1 NAME 'testAdAccount' AUXILIARY MAY userAccountControl )
`;

function slapdConf(dir: string, bindDn: string, rootDn: string, rootPassword: string): string {
  return `include ${SCHEMAS}/core.schema
include ${SCHEMAS}/cosine.schema
include ${SCHEMAS}/inetorgperson.schema
include ${dir}/ad.schema
modulepath ${MODULES}
moduleload back_mdb
moduleload ppolicy
pidfile ${dir}/slapd.pid
argsfile ${dir}/slapd.args
TLSCertificateFile ${dir}/cert.pem
TLSCertificateKeyFile ${dir}/key.pem
# An LDAP "unauthenticated bind" (a DN with an empty password) succeeds here, as on many directories: the driver
# must refuse an empty password itself.
allow bind_anon_dn

database mdb
maxsize 67108864
suffix "${BASE_DN}"
rootdn "${rootDn}"
rootpw ${rootPassword}
directory ${dir}/db

overlay ppolicy
ppolicy_default "cn=default,ou=policies,${BASE_DN}"

access to attrs=userPassword
  by anonymous auth
  by * none
access to dn.subtree="${PEOPLE}"
  by dn.exact="${bindDn}" read
  by self read
  by * none
access to dn.subtree="${GROUPS}"
  by dn.exact="${bindDn}" read
  by users read
  by * none
access to *
  by * none
`;
}

function entry(dn: string, attrs: Record<string, string | string[]>): string {
  const lines = [`dn: ${dn}`];
  for (const [k, v] of Object.entries(attrs)) for (const one of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${one}`);
  return lines.join('\n');
}

function seed(users: TestSlapd['users'], bindDn: string, bindPassword: string): string {
  const person = (u: SlapdUser, extra: Record<string, string | string[]> = {}) => entry(u.dn, {
    objectClass: ['inetOrgPerson', ...(extra.objectClass ? [extra.objectClass as string] : [])],
    uid: u.uid, cn: `${u.givenName} ${u.sn}`, givenName: u.givenName, sn: u.sn, mail: u.mail, userPassword: ssha(u.password),
    ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'objectClass')),
  });
  return [
    entry(BASE_DN, { objectClass: ['dcObject', 'organization'], dc: 'example', o: 'Example' }),
    ...['people', 'groups', 'services', 'policies'].map((ou) => entry(`ou=${ou},${BASE_DN}`, { objectClass: 'organizationalUnit', ou })),
    entry(`cn=default,ou=policies,${BASE_DN}`, {
      objectClass: ['device', 'pwdPolicy'], cn: 'default', pwdAttribute: 'userPassword',
      pwdMaxFailure: '3', pwdLockout: 'TRUE', pwdLockoutDuration: '0', pwdFailureCountInterval: '0',
    }),
    entry(bindDn, { objectClass: ['organizationalRole', 'simpleSecurityObject'], cn: 'reader', userPassword: ssha(bindPassword) }),
    person(users.alice), person(users.bob), person(users.dave), person(users.smith),
    // 000001010000Z: locked until an administrator unlocks it (ppolicy, slapd 2.5). slapadd takes operational attributes.
    person(users.carol, { pwdAccountLockedTime: '000001010000Z' }),
    // 514 = NORMAL_ACCOUNT (0x200) | ACCOUNTDISABLE (0x2).
    person(users.erin, { objectClass: 'testAdAccount', userAccountControl: '514' }),
    entry(`cn=editors,${GROUPS}`, { objectClass: 'groupOfNames', cn: 'editors', member: [users.alice.dn, users.smith.dn] }),
    entry(`cn=admins,${GROUPS}`, { objectClass: 'groupOfNames', cn: 'admins', member: [users.bob.dn] }),
  ].join('\n\n') + '\n';
}

function run(cmd: string, args: string[], dir: string): void {
  const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout || r.error?.message}`);
}

/** Spawns slapd in the foreground (-d stats logs each operation to stderr) and waits for "slapd starting". */
function launch(dir: string, url: string, ldapsUrl: string, onOutput: (text: string) => void): Promise<ChildProcess> {
  const proc = spawn(SLAPD, ['-d', 'stats', '-f', join(dir, 'slapd.conf'), '-h', `${url}/ ${ldapsUrl}/`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = '';
  return new Promise<ChildProcess>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error('slapd did not start within 15 s')), 15_000);
    const onData = (d: Buffer) => {
      const text = d.toString();
      onOutput(text);
      seen += text;
      if (seen.includes('slapd starting')) done();
    };
    const onExit = (code: number | null, signal: string | null) => done(new Error(`slapd exited (${code ?? signal})`));
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', onExit);
    proc.once('error', done);
    function done(err?: Error) {
      clearTimeout(timer);
      proc.off('exit', onExit);
      proc.off('error', done);
      if (!err) return resolve(proc);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      reject(err);
    }
  });
}

/** Resolves once a TCP connection to 127.0.0.1:port succeeds (polling), or rejects after timeoutMs. */
async function accepting(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => { socket.destroy(); resolve(false); });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`slapd does not accept connections on port ${port}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function user(uid: string, rdnValue: string, givenName: string, sn: string): SlapdUser {
  return { uid, dn: `uid=${rdnValue},${PEOPLE}`, password: `${uid.replace(/\W/g, '')}-pw-${randomBytes(3).toString('hex')}`, mail: `${uid.replace(/\W/g, '')}@example.org`, givenName, sn };
}

/** Starts slapd; stop() kills it and removes its directory. */
export async function startSlapd(): Promise<TestSlapd> {
  const dir = mkdtempSync(join(tmpdir(), 'slapd-'));
  let child: ChildProcess | undefined;
  let output = '';
  const cleanup = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child!.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const bindDn = `cn=reader,ou=services,${BASE_DN}`;
    const bindPassword = `reader-${randomBytes(6).toString('hex')}`;
    const rootDn = `cn=admin,${BASE_DN}`;
    const rootPassword = `root-${randomBytes(6).toString('hex')}`;
    const users: TestSlapd['users'] = {
      alice: user('alice', 'alice', 'Alice', 'Liddell'),
      bob: user('bob', 'bob', 'Bob', 'Builder'),
      carol: user('carol', 'carol', 'Carol', 'Locked'),
      dave: user('dave', 'dave', 'Dave', 'Lockable'),
      erin: user('erin', 'erin', 'Erin', 'Disabled'),
      // The DN as slapd returns it (it writes an escaped comma as \2C).
      smith: user('smith, jr', 'smith\\2C jr', 'John', 'Smith'),
    };
    mkdirSync(join(dir, 'db'));
    writeFileSync(join(dir, 'ad.schema'), AD_SCHEMA);
    run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', 'key.pem', '-out', 'cert.pem'], dir);
    writeFileSync(join(dir, 'slapd.conf'), slapdConf(dir, bindDn, rootDn, rootPassword));
    writeFileSync(join(dir, 'seed.ldif'), seed(users, bindDn, bindPassword));
    run(SLAPADD, ['-f', join(dir, 'slapd.conf'), '-l', join(dir, 'seed.ldif')], dir);

    // freePort() closes the port before slapd binds it: another process may take it in between, so retry.
    let url = '';
    let ldapsUrl = '';
    for (let attempt = 1; ; attempt++) {
      url = `ldap://127.0.0.1:${await freePort()}`;
      ldapsUrl = `ldaps://127.0.0.1:${await freePort()}`;
      output = '';
      try {
        child = await launch(dir, url, ldapsUrl, (text) => { output += text; });
        // slapd logs "slapd starting" before its listener thread calls listen(): wait until both ports accept.
        await Promise.all([url, ldapsUrl].map((u) => accepting(Number(new URL(u).port), 10_000)));
        break;
      } catch (err) {
        if (attempt >= 3 || !output.includes('Address already in use')) throw err;
      }
    }
    return {
      url, ldapsUrl, caPem: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      baseDn: BASE_DN, peopleDn: PEOPLE, groupsDn: GROUPS, bindDn, bindPassword, rootDn, rootPassword, users,
      log: () => output,
      stop: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw new Error(`Could not start slapd: ${(err as Error).message}${output ? `\n--- slapd output ---\n${output}` : ''}`);
  }
}
