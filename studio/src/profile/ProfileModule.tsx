/** /admin/profile: the signed-in user's own account (PATCH /users/me takes only the self-editable fields): name,
 * email, avatar, language and appearance (applied across the Studio as soon as it is saved); the password (with
 * the current one, and a one-time code when two-factor is on); two-factor set-up (secret and QR code, confirmed
 * with a code) and removal; and a static API token made in the browser, shown once. */
import { useSession } from '../app/session.tsx';
import { usePolicyGlobals } from '../content/schema.ts';
import { Loading } from '../ui/Loading.tsx';
import { DetailsForm } from './DetailsForm.tsx';
import { PasswordForm } from './PasswordForm.tsx';
import { StaticToken } from './StaticToken.tsx';
import { TwoFactor } from './TwoFactor.tsx';
import './profile.css';

export default function ProfileModule() {
  const { me } = useSession();
  const globals = usePolicyGlobals();
  if (!me) return <div className="main-pane"><Loading label="Loading your profile" /></div>;
  const name = [me.first_name, me.last_name].filter(Boolean).join(' ');
  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Your profile</h1>
        <span className="muted profile-who">{name ? `${name} · ` : ''}{me.email}</span>
      </header>
      <div className="page-body">
        <div className="profile-sections">
          <DetailsForm key={me.id} me={me} />
          <PasswordForm tfaEnabled={Boolean(me.tfa_enabled)} />
          <TwoFactor enabled={Boolean(me.tfa_enabled)} enforced={Boolean(globals.data?.enforce_tfa)} />
          <StaticToken />
        </div>
      </div>
    </div>
  );
}
