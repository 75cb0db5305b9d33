/** Helpers of the webhook tests: a self-signed X.509 certificate built with node:crypto alone (a minimal DER
 * encoder: v1 certificate, CN only, sha256WithRSAEncryption), SNS messages signed with it, gateway_mail
 * signatures, and providers created through the admin API. */
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { TestApp } from '../helpers/app.ts';

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, content]);
}

const seq = (...parts: Buffer[]) => der(0x30, Buffer.concat(parts));
const SHA256_RSA = seq(der(0x06, Buffer.from('2a864886f70d01010b', 'hex')), Buffer.from([0x05, 0x00]));

function utcTime(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return der(0x17, Buffer.from(s, 'ascii'));
}

function name(cn: string): Buffer {
  return seq(der(0x31, seq(der(0x06, Buffer.from('550403', 'hex')), der(0x0c, Buffer.from(cn, 'utf8')))));
}

export interface TestCert { pem: string; privateKey: KeyObject }

/** A self-signed RSA certificate valid from `from` to `to`. */
export function selfSignedCert(cn = 'sns.test', from = new Date(Date.now() - 86_400_000), to = new Date(Date.now() + 86_400_000)): TestCert {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const tbs = seq(der(0x02, Buffer.from([0x01])), SHA256_RSA, name(cn), seq(utcTime(from), utcTime(to)), name(cn), spki);
  const signature = sign('sha256', tbs, privateKey);
  const cert = seq(tbs, SHA256_RSA, der(0x03, Buffer.concat([Buffer.from([0x00]), signature])));
  const b64 = cert.toString('base64').replace(/(.{64})/g, '$1\n').trim();
  return { pem: `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`, privateKey };
}

export const CERT_URL = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem';
export const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ses-events';

export type SnsFields = Record<string, string>;

/** Signs an SNS message as SNS does: the canonical `Key\nvalue\n` string of the type's fields, in order. */
export function signSns(fields: SnsFields, key: KeyObject, version: '1' | '2' = '1', certUrl = CERT_URL): SnsFields {
  const order = fields.Type === 'Notification'
    ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
    : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const canonical = order.filter((k) => fields[k] !== undefined).map((k) => `${k}\n${fields[k]}\n`).join('');
  const signature = sign(version === '1' ? 'sha1' : 'sha256', Buffer.from(canonical, 'utf8'), key).toString('base64');
  return { ...fields, SignatureVersion: version, Signature: signature, SigningCertURL: certUrl };
}

/** An SNS Notification carrying an SES event. */
export function sesNotification(snsMessageId: string, ses: Record<string, unknown>): SnsFields {
  return {
    Type: 'Notification', MessageId: snsMessageId, TopicArn: TOPIC, Message: JSON.stringify(ses),
    Timestamp: new Date().toISOString(),
  };
}

export function sesEvent(eventType: string, messageId: string, detail: Record<string, unknown> = {}): Record<string, unknown> {
  const key = eventType === 'DeliveryDelay' ? 'deliveryDelay' : eventType.charAt(0).toLowerCase() + eventType.slice(1);
  return {
    eventType,
    mail: { timestamp: '2026-11-23T10:00:00.000Z', messageId, source: 'noreply@example.com', destination: ['to@example.com'] },
    [key]: { timestamp: '2026-11-23T10:00:05.000Z', ...detail },
  };
}

export function gatewaySign(secret: string, body: string, ts = Math.floor(Date.now() / 1000)): Record<string, string> {
  const sig = createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
  return { 'x-timestamp': String(ts), 'x-signature': `sha256=${sig}` };
}

/** A provider through POST /notify/providers (admin API); returns its id. */
export async function createProvider(t: TestApp, fields: Record<string, unknown>): Promise<number> {
  const res = await t.req('POST', '/notify/providers', fields);
  if (res.status !== 200) throw new Error(`POST /notify/providers: ${res.status} ${JSON.stringify(res.body)}`);
  const data = res.body.data;
  return Number(typeof data === 'object' && data !== null ? data.id : data);
}

export const GATEWAY_CONFIG = { base_url: 'http://127.0.0.1:9/', api_key: 'k', from: 'noreply@example.com' };
export const CLOUD_CONFIG = { region: 'eu-west-1', access_key: 'AKIA', secret_key: 'S', from: 'noreply@example.com' };
