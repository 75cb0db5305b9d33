/** Which addresses POST /files/import may connect to: public unicast only. Loopback, private, link-local
 * (the cloud metadata address 169.254.169.254 included), unspecified, CGNAT, benchmarking, multicast and
 * reserved ranges are refused, in IPv4 and in every IPv6 form that carries an IPv4 address (mapped
 * ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16), unless FILES_IMPORT_IP_ALLOW_LIST
 * names a CIDR range containing them. */
import { BlockList, isIP } from 'node:net';

const DENIED_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];

const DENIED_V6: [string, number][] = [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];

const denied = new BlockList();
for (const [net, prefix] of DENIED_V4) denied.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of DENIED_V6) denied.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tails included), or null. */
function groupsOf(address: string): number[] | null {
  let text = address.toLowerCase().split('%')[0];
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const p = tail[1].split('.').map(Number);
    if (p.some((n) => n > 255)) return null;
    text = text.slice(0, -tail[1].length) + `${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const groups = all.map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  return groups.some(Number.isNaN) ? null : groups;
}

function v4(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or null. */
export function embeddedIPv4(address: string): string | null {
  const g = groupsOf(address);
  if (!g) return null;
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6], g[7]);
  if (zeros(0, 6) && (g[6] !== 0 || g[7] > 1)) return v4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6], g[7]);
  if (g[0] === 0x2002) return v4(g[1], g[2]);
  return null;
}

export class AddressPolicy {
  readonly #allowed = new BlockList();

  constructor(allowList: readonly string[]) {
    for (const entry of allowList) {
      const [net, bits] = entry.split('/');
      const family = isIP(net);
      if (family === 0) throw new Error(`FILES_IMPORT_IP_ALLOW_LIST: "${entry}" is not an address or CIDR range`);
      const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) throw new Error(`FILES_IMPORT_IP_ALLOW_LIST: bad prefix in "${entry}"`);
      this.#allowed.addSubnet(net, prefix, family === 4 ? 'ipv4' : 'ipv6');
    }
  }

  #allowedExplicitly(address: string, family: 'ipv4' | 'ipv6'): boolean {
    return this.#allowed.check(address, family);
  }

  /** True when a connection to this (literal) address may be made. */
  permits(address: string): boolean {
    const family = isIP(address);
    if (family === 4) return this.#allowedExplicitly(address, 'ipv4') || !denied.check(address, 'ipv4');
    if (family !== 6) return false;
    if (this.#allowedExplicitly(address, 'ipv6')) return true;
    const inner = embeddedIPv4(address);
    if (inner) return this.permits(inner);
    return !denied.check(address, 'ipv6');
  }
}
