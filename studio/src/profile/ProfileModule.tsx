/** /admin/profile: the signed-in user's own account. */
import { useSession } from '../app/session.tsx';

export default function ProfileModule() {
  const { me } = useSession();
  return (
    <div className="main-pane">
      <header className="page-header"><h1>Your profile</h1></header>
      <div className="page-body">
        <p>{[me?.first_name, me?.last_name].filter(Boolean).join(' ') || me?.email}</p>
      </div>
    </div>
  );
}
