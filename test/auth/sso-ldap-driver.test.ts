/** The LDAP driver of external sign-on against a real OpenLDAP server (test/helpers/slapd.ts): search with the
 * service account or bind directly, groups, filter and DN injection, the empty-password trap, ppolicy locks and AD's
 * disabled flag, ldaps:// and StartTLS, an unreachable and a silent directory. */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'ldapts';
import { ldapAuthenticate } from '../../core/auth/sso/ldap.ts';
import type { LdapProviderConfig } from '../../core/auth/sso/types.ts';
import { InvalidCredentialsError, ServiceUnavailableError, UserSuspendedError, type ServiceError } from '../../core/errors.ts';
import { freePort } from '../helpers/free-port.ts';
import { slapdSkipReason, startSlapd, type TestSlapd } from '../helpers/slapd.ts';

const SKIP = slapdSkipReason();

let ldap: TestSlapd;

function config(over: Partial<LdapProviderConfig> = {}): LdapProviderConfig {
  return {
    name: 'corp', label: 'Corp', icon: null, allowPublicRegistration: true, defaultRoleId: null, syncUserInfo: false,
    roleMapping: {}, source: 'env', driver: 'ldap',
    clientUrl: ldap.url, bindDn: ldap.bindDn, bindPassword: ldap.bindPassword,
    userDn: ldap.peopleDn, userAttribute: 'uid', userScope: 'one',
    mailAttribute: 'mail', firstNameAttribute: 'givenName', lastNameAttribute: 'sn',
    groupDn: ldap.groupsDn, groupAttribute: 'member', groupScope: 'one',
    startTls: false, tls: { rejectUnauthorized: true, ca: null },
    ...over,
  };
}

const direct = () => config({ bindDn: null, bindPassword: null });

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(() => null, (e: unknown) => e);
  if (!err) throw new Error('expected a refusal, got a profile');
  return err as ServiceError;
}

/** pwdAccountLockedTime as the rootdn sees it (an operational attribute), or null. */
async function lockedTime(dn: string): Promise<string | null> {
  const c = new Client({ url: ldap.url, timeout: 5000 });
  try {
    await c.bind(ldap.rootDn, ldap.rootPassword);
    const { searchEntries } = await c.search(dn, { scope: 'base', attributes: ['pwdAccountLockedTime'] });
    const value = searchEntries[0]?.pwdAccountLockedTime;
    return (Array.isArray(value) ? value[0]?.toString() : value?.toString()) ?? null;
  } finally {
    await c.unbind();
  }
}

describe.skipIf(!!SKIP)(`LDAP driver on OpenLDAP${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  beforeAll(async () => { ldap = await startSlapd(); });
  afterAll(async () => { await ldap?.stop(); });

  describe.each([
    ['service account + search', () => config()],
    ['direct bind', direct],
  ])('%s', (_mode, cfg) => {
    it('signs alice in: profile from the entry, groups by cn, authData the DN only', async () => {
      const { alice } = ldap.users;
      const p = await ldapAuthenticate(cfg(), alice.uid, alice.password);
      expect(p).toEqual({
        identifier: alice.dn, email: alice.mail, emailVerified: true, firstName: 'Alice', lastName: 'Liddell',
        groups: ['editors'], authData: { dn: alice.dn },
      });
      expect(JSON.stringify(p)).not.toContain(alice.password);
    });

    it('bob is in admins; without groupDn no groups are looked up', async () => {
      const { bob } = ldap.users;
      expect((await ldapAuthenticate(cfg(), bob.uid, bob.password)).groups).toEqual(['admins']);
      expect((await ldapAuthenticate({ ...cfg(), groupDn: null }, bob.uid, bob.password)).groups).toEqual([]);
    });

    it('a uid with a comma ("smith, jr") is escaped in the DN and in the group filter', async () => {
      const { smith } = ldap.users;
      const p = await ldapAuthenticate(cfg(), smith.uid, smith.password);
      expect(p.identifier).toBe(smith.dn);
      expect(p.groups).toEqual(['editors']);
    });

    it.each([
      ['wrong password', 'alice', 'not-the-password'],
      ['unknown user', 'nobody', 'whatever-password'],
      ['empty password', 'alice', ''],
      ['empty identifier', '', 'whatever-password'],
    ])('%s: InvalidCredentialsError, the same for each', async (_case, id, password) => {
      const err = await failure(ldapAuthenticate(cfg(), id, password));
      expect(err).toBeInstanceOf(InvalidCredentialsError);
      expect(err.message).toBe(new InvalidCredentialsError().message);
    });

    // Each of these, pasted unescaped into `(uid=…)` or `uid=…,ou=people,…`, would select alice (or everyone).
    it.each(['*', 'al*', '*)(uid=*', 'admin)(|(uid=*', 'alice)(uid=alice', 'alice,ou=people', 'alice+cn=Alice Liddell'])(
      'identifier %j matches no one, even with alice\'s password', async (id) => {
        const err = await failure(ldapAuthenticate(cfg(), id, ldap.users.alice.password));
        expect(err).toBeInstanceOf(InvalidCredentialsError);
      });
  });

  it('the empty-password refusal matters: this server takes an unauthenticated bind as success, and the driver sends nothing', async () => {
    const raw = new Client({ url: ldap.url, timeout: 5000 });
    try {
      await expect(raw.bind(ldap.users.alice.dn, '')).resolves.toBeUndefined();
    } finally {
      await raw.unbind();
    }
    // A directory that cannot be reached still answers "invalid credentials": no connection was even attempted.
    const nowhere = `ldap://127.0.0.1:${await freePort()}`;
    for (const cfg of [config({ clientUrl: nowhere }), { ...direct(), clientUrl: nowhere }]) {
      expect(await failure(ldapAuthenticate(cfg, ldap.users.alice.uid, ''))).toBeInstanceOf(InvalidCredentialsError);
    }
  });

  it('an identifier matching more than one entry is refused', async () => {
    // `(objectClass=inetOrgPerson)` matches every person.
    const cfg = config({ userAttribute: 'objectClass', userScope: 'sub' });
    expect(await failure(ldapAuthenticate(cfg, 'inetOrgPerson', ldap.users.alice.password))).toBeInstanceOf(InvalidCredentialsError);
  });

  describe('locked and disabled accounts', () => {
    it.each([
      ['carol, locked by an administrator (pwdAccountLockedTime), right password', 'carol', true],
      ['carol, wrong password', 'carol', false],
      ['erin, AD userAccountControl ACCOUNTDISABLE, right password', 'erin', true],
      ['erin, wrong password', 'erin', false],
    ] as const)('%s: UserSuspendedError', async (_case, who, right) => {
      const u = ldap.users[who];
      const err = await failure(ldapAuthenticate(config(), u.uid, right ? u.password : 'wrong-password'));
      expect(err).toBeInstanceOf(UserSuspendedError);
    });

    it('direct bind: AD-disabled erin is suspended; locked carol cannot bind, so reads as invalid credentials', async () => {
      expect(await failure(ldapAuthenticate(direct(), 'erin', ldap.users.erin.password))).toBeInstanceOf(UserSuspendedError);
      expect(await failure(ldapAuthenticate(direct(), 'carol', ldap.users.carol.password))).toBeInstanceOf(InvalidCredentialsError);
    });

    it('dave: three wrong passwords lock him (ppolicy pwdMaxFailure 3); then the right one is refused as suspended', async () => {
      const { dave } = ldap.users;
      for (const attempt of [1, 2]) {
        expect(await failure(ldapAuthenticate(config(), dave.uid, `wrong-${attempt}`)), `attempt ${attempt}`).toBeInstanceOf(InvalidCredentialsError);
      }
      expect(await lockedTime(dave.dn)).toBeNull();
      // The third failure locks the account, and the driver reads the lock right after it.
      expect(await failure(ldapAuthenticate(config(), dave.uid, 'wrong-3'))).toBeInstanceOf(UserSuspendedError);
      expect(await lockedTime(dave.dn)).toMatch(/^\d{14}Z$/);
      expect(await failure(ldapAuthenticate(config(), dave.uid, dave.password))).toBeInstanceOf(UserSuspendedError);
    });
  });

  describe('TLS', () => {
    it('ldaps:// with the CA signs in', async () => {
      const p = await ldapAuthenticate(config({ clientUrl: ldap.ldapsUrl, tls: { rejectUnauthorized: true, ca: ldap.caPem } }), 'alice', ldap.users.alice.password);
      expect(p.identifier).toBe(ldap.users.alice.dn);
    });

    it('ldaps:// without the CA, certificates checked: ServiceUnavailableError naming the certificate problem', async () => {
      const err = await failure(ldapAuthenticate(config({ clientUrl: ldap.ldapsUrl }), 'alice', ldap.users.alice.password));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err.reason).toMatch(/CERT|SIGNATURE|certificate/i);
    });

    it('ldaps:// without the CA and rejectUnauthorized false signs in', async () => {
      const p = await ldapAuthenticate(config({ clientUrl: ldap.ldapsUrl, tls: { rejectUnauthorized: false, ca: null } }), 'bob', ldap.users.bob.password);
      expect(p.groups).toEqual(['admins']);
    });

    it('StartTLS with the CA upgrades the connection (slapd logs the extended operation) and signs in', async () => {
      const before = (ldap.log().match(/EXT oid=1\.3\.6\.1\.4\.1\.1466\.20037/g) ?? []).length;
      const p = await ldapAuthenticate(config({ startTls: true, tls: { rejectUnauthorized: true, ca: ldap.caPem } }), 'alice', ldap.users.alice.password);
      expect(p.groups).toEqual(['editors']);
      expect((ldap.log().match(/EXT oid=1\.3\.6\.1\.4\.1\.1466\.20037/g) ?? []).length).toBe(before + 1);
    });

    it('StartTLS without the CA: ServiceUnavailableError, and no credentials were sent in the clear', async () => {
      const err = await failure(ldapAuthenticate(config({ startTls: true }), 'alice', ldap.users.alice.password));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
    });
  });

  describe('an unavailable directory', () => {
    it('a port nothing listens on: ServiceUnavailableError at once', async () => {
      const started = Date.now();
      const err = await failure(ldapAuthenticate(config({ clientUrl: `ldap://127.0.0.1:${await freePort()}` }), 'alice', ldap.users.alice.password));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('a server that accepts the connection and never answers: ServiceUnavailableError within the timeout, no secret in it', async () => {
      const sockets = new Set<Socket>();
      const silent: Server = createServer((s) => { sockets.add(s); s.on('data', () => undefined); s.on('error', () => undefined); });
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      const port = (silent.address() as { port: number }).port;
      try {
        const started = Date.now();
        const err = await failure(ldapAuthenticate(config({ clientUrl: `ldap://127.0.0.1:${port}` }), 'alice', ldap.users.alice.password));
        const elapsed = Date.now() - started;
        expect(err).toBeInstanceOf(ServiceUnavailableError);
        expect(elapsed).toBeGreaterThan(4000);
        expect(elapsed).toBeLessThan(8000);
        const text = `${err.message} ${err.reason ?? ''} ${JSON.stringify(err.extensions)}`;
        for (const secret of [ldap.bindPassword, ldap.users.alice.password, ldap.bindDn]) expect(text).not.toContain(secret);
      } finally {
        for (const s of sockets) s.destroy();
        await new Promise<void>((r) => silent.close(() => r()));
      }
    }, 15_000);

    it('StartTLS to a silent server also gives up within the timeout', async () => {
      const sockets = new Set<Socket>();
      const silent: Server = createServer((s) => { sockets.add(s); s.on('error', () => undefined); });
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      const port = (silent.address() as { port: number }).port;
      try {
        const started = Date.now();
        const err = await failure(ldapAuthenticate(config({ clientUrl: `ldap://127.0.0.1:${port}`, startTls: true }), 'alice', ldap.users.alice.password));
        expect(err).toBeInstanceOf(ServiceUnavailableError);
        expect(Date.now() - started).toBeLessThan(8000);
      } finally {
        for (const s of sockets) s.destroy();
        await new Promise<void>((r) => silent.close(() => r()));
      }
    }, 15_000);

    it('a wrong service-account password: ServiceUnavailableError (a configuration fault, not the user\'s)', async () => {
      const err = await failure(ldapAuthenticate(config({ bindPassword: 'not-it' }), 'alice', ldap.users.alice.password));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err.message).not.toContain('not-it');
    });
  });

  it('every connection the driver opened is closed, failed TLS included (slapd logs an ACCEPT and a close for each)', async () => {
    await ldapAuthenticate(config(), 'alice', ldap.users.alice.password);
    await failure(ldapAuthenticate(config(), 'alice', 'wrong'));
    await ldapAuthenticate(direct(), 'bob', ldap.users.bob.password);
    await failure(ldapAuthenticate(config({ startTls: true }), 'alice', ldap.users.alice.password));
    await failure(ldapAuthenticate(config({ clientUrl: ldap.ldapsUrl }), 'alice', ldap.users.alice.password));
    await failure(ldapAuthenticate(config(), 'carol', ldap.users.carol.password));
    await new Promise((r) => setTimeout(r, 200));
    const log = ldap.log();
    const accepted = [...log.matchAll(/conn=(\d+) fd=\d+ ACCEPT/g)].map((m) => m[1]);
    const closed = new Set([...log.matchAll(/conn=(\d+) fd=\d+ closed/g)].map((m) => m[1]));
    expect(accepted.length).toBeGreaterThan(3);
    expect(accepted.filter((c) => !closed.has(c))).toEqual([]);
  });
});
