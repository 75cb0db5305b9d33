/** An IP address or CIDR range as svc_policies.ip_access takes it (core/admin/policies.ts validCidr): IPv4 or IPv6,
 * with an optional prefix length up to 32 or 128. Checked in the browser before sending, so a typo is told on its
 * line; the server checks again and has the last word. */

function isIPv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

function isIPv6(text: string): boolean {
  if (!text.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(text)) return false;
  try {
    // The URL parser knows IPv6's every shorthand (::, embedded IPv4) and refuses the rest.
    new URL(`http://[${text}]/`);
    return true;
  } catch {
    return false;
  }
}

/** Null when `entry` is a valid address or range, else what is wrong with it. */
export function cidrProblem(entry: string): string | null {
  const text = entry.trim();
  if (text === '') return 'Enter an address or a range, or remove this line.';
  const [address, prefix, extra] = text.split('/');
  if (extra !== undefined) return `"${text}" has more than one "/".`;
  const max = isIPv4(address) ? 32 : isIPv6(address) ? 128 : -1;
  if (max < 0) return `"${address}" is not an IP address. Write it like 192.168.1.10, 10.0.0.0/8 or 2001:db8::/32.`;
  if (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= max)) {
    return `The prefix length after "/" must be a number from 0 to ${max}.`;
  }
  return null;
}
