/** What a channel sender gets and answers. */
export interface OutgoingMessage {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  /** Rendered content: HTML for email, text for chat. */
  content: string;
  /** A stable reference of the message (the log id): SMTP sends it as the Message-ID, so a resend of the same log
   * after a crash carries the same Message-ID and mail stores that deduplicate by it keep one copy. */
  reference?: string;
}

export interface SendResult {
  /** The provider's id of the message (SMTP Message-ID, SES MessageId, the gateway's id), null when it gives none. */
  messageId: string | null;
  /** What the provider answered, stored as the log's provider_response. */
  response: Record<string, unknown>;
}

export interface ChannelSender {
  /** Resolves once the provider accepted the message; throws when it did not. */
  send(message: OutgoingMessage): Promise<SendResult>;
  close(): void;
}

/** A provider answered with an error status: not worth retrying when it is a 4xx other than 408/429. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(message: string, readonly status: number | null = null) { super(message); }
}
