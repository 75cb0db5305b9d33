/** Who is asking: built once per request by authentication, consumed by every core service. */
export interface Accountability {
  user: string | null;
  /** Primary role (svc_users.role) or the Public role for anonymous requests. */
  role: string | null;
  /** The role and its ancestors through svc_roles.parent. */
  roles: string[];
  /** Policies attached to the roles and directly to the user. */
  policies: string[];
  admin: boolean;
  app: boolean;
  /** The role (chain) has service_account: the request counts in the service rate-limit bucket. */
  serviceAccount?: boolean;
  /** A share token (POST /shares/auth): acts as the share's role but reads only this one item and writes nothing. */
  share?: { id: string; collection: string; item: string } | null;
  /** The admin/impersonator behind an impersonation token (POST /auth/impersonate); stamped on activity. */
  impersonatedBy?: string | null;
  /** The login session the credential belongs to (core/auth/sessions.ts sessionRef): a password change made
   * by the user themselves keeps this one session. Absent for static tokens and impersonation. */
  session?: string | null;
  /** A login token of a user who must set up two-factor first: only the enrolment calls are allowed
   * (core/auth/tfa-setup.ts, checked by the HTTP authentication). */
  tfaSetupOnly?: boolean;
  ip: string | null;
  userAgent: string | null;
  origin: string | null;
}

/** An internal caller that bypasses permission checks (bootstrap, migrations, scheduled jobs). */
export function systemAccountability(): Accountability {
  return { user: null, role: null, roles: [], policies: [], admin: true, app: true, ip: null, userAgent: null, origin: null };
}
