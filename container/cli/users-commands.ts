/** `svc users list|create|passwd`: the accounts of the service, through the users service (the same rules as
 * POST/PATCH /users: the password policy, unique emails, the role checked). */
import { CliError, EXIT, type Output } from './output.ts';
import type { Target, UserRow } from './target.ts';

const FIELDS = 'id,email,first_name,last_name,status,role';

async function roleId(target: Target, role: string): Promise<string> {
  const byName = await target.read('svc_roles', { fields: 'id,name', filter: { _or: [{ name: { _eq: role } }, ...(/^[0-9a-f-]{36}$/i.test(role) ? [{ id: { _eq: role } }] : [])] }, limit: 2 });
  if (byName.length === 0) throw new CliError(`no role named "${role}"`);
  if (byName.length > 1) throw new CliError(`more than one role is named "${role}": give its id`);
  return String(byName[0].id);
}

async function userByEmail(target: Target, email: string): Promise<UserRow> {
  const [user] = await target.read('svc_users', { fields: FIELDS, filter: { email: { _eq: email.toLowerCase() } }, limit: 1 }) as unknown as UserRow[];
  if (!user) throw new CliError(`no user with the email ${email}`);
  return user;
}

export async function listUsers(target: Target, out: Output): Promise<void> {
  const users = await target.read('svc_users', { fields: FIELDS, sort: 'email', limit: -1 }) as unknown as UserRow[];
  const roles = new Map((await target.read('svc_roles', { fields: 'id,name', limit: -1 })).map((r) => [String(r.id), String(r.name)]));
  out.result(users, () => {
    if (users.length === 0) return ['No users.'];
    const rows = users.map((u) => [u.email ?? '(no email)', [u.first_name, u.last_name].filter(Boolean).join(' '), u.role ? roles.get(u.role) ?? u.role : '(no role)', u.status]);
    const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length), ['EMAIL', 'NAME', 'ROLE'][i].length));
    const line = (r: string[]) => r.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c)).join('  ');
    return [line(['EMAIL', 'NAME', 'ROLE', 'STATUS']), ...rows.map(line)];
  });
}

export async function createUser(target: Target, out: Output, email: string, opts: { password?: string; role?: string; firstName?: string; lastName?: string }): Promise<void> {
  if (!opts.password) throw new CliError('--password is required (or SVC_PASSWORD in the environment)', EXIT.usage);
  const body: Record<string, unknown> = { email, password: opts.password, status: 'active' };
  if (opts.role) body.role = await roleId(target, opts.role);
  if (opts.firstName) body.first_name = opts.firstName;
  if (opts.lastName) body.last_name = opts.lastName;
  const id = await target.createUser(body);
  out.result({ id, email }, () => [`Created ${email} (${id})${opts.role ? ` with the role ${opts.role}` : ''} on ${target.where}.`]);
}

export async function setPassword(target: Target, out: Output, email: string, opts: { password?: string }): Promise<void> {
  if (!opts.password) throw new CliError('--password is required (or SVC_PASSWORD in the environment)', EXIT.usage);
  const user = await userByEmail(target, email);
  await target.updateUser(user.id, { password: opts.password });
  out.result({ id: user.id, email: user.email }, () => [`Changed the password of ${user.email} on ${target.where}.`]);
}
