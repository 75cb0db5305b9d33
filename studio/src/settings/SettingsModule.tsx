/** Being built in this change. */
import { SectionLayout } from '../ui/SectionLayout.tsx';

export default function SettingsModule() {
  return <SectionLayout title="Settings" sections={[]}><div className="main-pane"><header className="page-header"><h1>Settings</h1></header></div></SectionLayout>;
}
