/** What the Studio reads before anything else, sent in the same moment as the session's own requests
 * (./session.tsx): as it opens, the project's public face (GET /server/info); once a session is known, beside
 * GET /users/me, the schema, the caller's permissions and policy globals, and the saved views. None of these needs
 * another's answer (not even the user's), so a screen's own request (a list's items, an item) follows them in a
 * second round trip rather than a fourth or fifth. */
import type { QueryClient } from '@tanstack/react-query';
import { presetsQuery } from '../content/presets.ts';
import { appPermissionsQuery } from './capabilities.ts';
import { prefetchSchema } from '../content/schema.ts';
import { projectQuery } from './project.tsx';
import type { SessionPrefetch } from './session.tsx';

export const STUDIO_PREFETCH: SessionPrefetch = {
  opening(queryClient: QueryClient): void {
    void queryClient.prefetchQuery(projectQuery);
  },
  signedIn(queryClient: QueryClient): void {
    prefetchSchema(queryClient);
    void queryClient.prefetchQuery(presetsQuery);
    void queryClient.prefetchQuery(appPermissionsQuery);
  },
};
