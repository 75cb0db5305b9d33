/** The Studio's modules, one registry: the module bar (./Shell.tsx) and the routes (./App.tsx) are built from it.
 * Each module's code loads when first opened (the one of the address being opened, beside the session check), and
 * each is offered only to the users it serves (what they may do is still the API's to decide). */
import { Loading } from '../ui/Loading.tsx';
import { preloadable, type Preloadable } from './lazy.ts';
import type { Capabilities } from './capabilities.ts';

export interface StudioModule {
  /** The path under /admin, also the module's key. */
  path: string;
  label: string;
  icon: string;
  component: Preloadable<object>;
  /** Who is offered it; every signed-in user when absent (such a module opens without waiting for capabilities). */
  visible?(c: Capabilities): boolean;
  /** Shows the count of waiting review tasks on the module. */
  taskBadge?: boolean;
}

const loading = <Loading label="Loading" />;
const admins = (c: Capabilities): boolean => c.admin;

export const MODULES: StudioModule[] = [
  { path: '/content', label: 'Content', icon: '▤', component: preloadable(() => import('../content/ContentModule.tsx'), loading) },
  { path: '/files', label: 'File library', icon: '▣', component: preloadable(() => import('../files/FilesModule.tsx'), loading) },
  {
    path: '/review', label: 'Review', icon: '✓', taskBadge: true, component: preloadable(() => import('../review/ReviewModule.tsx'), loading),
    visible: (c) => c.has('workflow:participate') || c.has('workflow:view') || c.has('workflow:manage') || c.has('versioning:view'),
  },
  { path: '/data-model', label: 'Data model', icon: '◫', visible: admins, component: preloadable(() => import('../datamodel/DataModelModule.tsx'), loading) },
  { path: '/access', label: 'Access', icon: '⚷', visible: admins, component: preloadable(() => import('../access/AccessModule.tsx'), loading) },
  { path: '/messaging', label: 'Messaging', icon: '✉', visible: admins, component: preloadable(() => import('../messaging/MessagingModule.tsx'), loading) },
  { path: '/settings', label: 'Settings', icon: '⚙', visible: admins, component: preloadable(() => import('../settings/SettingsModule.tsx'), loading) },
  { path: '/profile', label: 'Your profile', icon: '◉', component: preloadable(() => import('../profile/ProfileModule.tsx'), loading) },
];

export function offered(m: StudioModule, c: Capabilities): boolean {
  return m.visible ? c.ready && m.visible(c) : true;
}

/** The module of an address under /admin, if any. */
export function moduleOf(pathname: string): StudioModule | undefined {
  const rest = pathname.replace(/^\/admin/, '');
  return MODULES.find((m) => rest === m.path || rest.startsWith(`${m.path}/`));
}
