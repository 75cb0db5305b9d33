/** The in-app channel: svc_notifications rows for users (core/notify/inapp.ts); its providers take no type and no
 * config. Recipients are users: a user id, or the address of a user. */
import { rejectUnknown } from '../payload-fields.ts';
import { plainRecipientList } from '../recipients.ts';
import { inAppSender, testInApp } from './inapp.ts';
import type { ChannelRecord } from './record.ts';

export const inAppChannel = {
  catalogue: { name: 'In-app', description: 'Notifications stored for users and shown inside the app.', icon: 'notifications', order: 2 },
  providerTypes: [],
  validateConfig(_type: string | null, c: Record<string, unknown>): Record<string, unknown> {
    rejectUnknown(c, [], 'config.');
    return {};
  },
  recipients: {
    needsUsers: true,
    of: (who) => who.users(),
    test: plainRecipientList,
  },
  message: { layout: false, copies: false },
  delivery: { kind: 'inbox', sender: inAppSender, test: testInApp },
} as const satisfies ChannelRecord;
