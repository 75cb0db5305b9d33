/** GET /notify/channels (Admin): the static catalog of delivery channels. */
import type { Channel } from './payload-fields.ts';

export interface ChannelInfo { id: Channel; name: string; description: string; icon: string }

export const CHANNEL_CATALOG: readonly ChannelInfo[] = [
  { id: 'email', name: 'Email', description: 'Email through the primary email provider (SMTP, cloud mail, sendmail or a mail gateway).', icon: 'mail' },
  { id: 'inapp', name: 'In-app', description: 'Notifications stored for users and shown inside the app.', icon: 'notifications' },
  { id: 'chat', name: 'Chat', description: 'Messages posted to a chat webhook.', icon: 'chat' },
];
