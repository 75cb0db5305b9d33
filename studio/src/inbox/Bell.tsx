/** The in-app notification bell for every user (svc_notifications): being built in this change. */
export function Bell() {
  return null;
}
