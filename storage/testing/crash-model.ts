/**
 * What a crash test knows about every message it sent: whether the send and the delete were
 * acknowledged, under which key (offset or id) it went, and whether it is known to be on the
 * device. After each crash and reopen, the messages found are compared with this model.
 *
 * The rules it checks:
 * - every body delivered is exactly the body of a message that was sent (never an unknown one,
 *   never a damaged one, never twice in one drain, never under another key);
 * - an acknowledged send that was not deleted is found again, when acknowledgements are durable
 *   (`always`, `group`); under `none` its loss is counted, and it must have been pending;
 * - a message known to be on the device (synced, or found after an earlier crash) is never lost;
 * - where deletes are durable, an acknowledged delete never comes back.
 * A send or delete whose acknowledgement was pending at the crash may go either way.
 */
import { CRASH_BODY_MIN_BYTES, crashBody, crashBodySeq } from './crash-body.js';

export interface ModelRules {
  /** Acknowledged sends survive a crash (`always`, `group`). */
  readonly acksAreDurable: boolean;
  /** An acknowledged delete stays deleted after a crash. */
  readonly deletesAreDurable: boolean;
  readonly bodyMaxBytes: number;
}

interface MessageState {
  readonly seq: number;
  /** Offset or id the message was sent under (predicted before the send for a failed one). */
  key: number;
  sent: 'pending' | 'acked';
  deleted: 'no' | 'pending' | 'acked';
  /** Synced, or found on the device after a crash: must never be lost. */
  durable: boolean;
  /** The body's length range when it was sent (setBodySizes). */
  readonly bodySizes: BodySizes;
}

/** Body lengths, inclusive: equal bounds give every body one length. */
export interface BodySizes {
  readonly minBytes: number;
  readonly maxBytes: number;
}

/** A message found after a reopen: its key and its body. */
export interface Found {
  readonly key: number;
  readonly body: Buffer;
}

export interface RecoveryCheck {
  /** Acknowledged, undeleted sends whose presence was checked. */
  readonly ackedChecked: number;
  /** Acknowledged, undeleted sends that were not found. */
  readonly lost: number;
}

export class CrashModel {
  readonly rules: ModelRules;
  readonly violations: string[] = [];
  readonly #messages = new Map<number, MessageState>();
  #nextSeq = 0;
  /** Largest key of an acknowledged send: keys must never go back below it. */
  #maxAckedKey = -1;
  #bodySizes: BodySizes;

  constructor(rules: ModelRules) {
    this.rules = rules;
    this.#bodySizes = { minBytes: CRASH_BODY_MIN_BYTES, maxBytes: rules.bodyMaxBytes };
  }

  /**
   * The lengths of the bodies sent from now on, within the rules' maximum: one length makes every
   * record one size, so a reused segment file's older records line up with the new ones; a change
   * between rounds makes them differ.
   */
  setBodySizes(sizes: BodySizes): void {
    this.#bodySizes = {
      minBytes: Math.max(CRASH_BODY_MIN_BYTES, Math.min(sizes.minBytes, this.rules.bodyMaxBytes)),
      maxBytes: Math.min(Math.max(sizes.maxBytes, sizes.minBytes), this.rules.bodyMaxBytes),
    };
  }

  get maxAckedKey(): number {
    return this.#maxAckedKey;
  }

  body(seq: number): Buffer {
    const { minBytes, maxBytes } = this.#messages.get(seq)?.bodySizes ?? this.#bodySizes;
    return crashBody(seq, maxBytes, minBytes);
  }

  /** A new message about to be sent under `key` (the key it will get if the send gets that far). */
  sendStarted(key: number): number {
    const seq = this.#nextSeq++;
    this.#messages.set(seq, {
      seq,
      key,
      sent: 'pending',
      deleted: 'no',
      durable: false,
      bodySizes: this.#bodySizes,
    });
    return seq;
  }

  sendAcked(seq: number, key: number): void {
    const message = this.#get(seq);
    if (message.key !== key) this.#violate(`message ${seq} expected at ${message.key}, got ${key}`);
    message.key = key;
    message.sent = 'acked';
    this.#maxAckedKey = Math.max(this.#maxAckedKey, key);
  }

  knows(seq: number): boolean {
    return this.#messages.has(seq);
  }

  deleteStarted(seq: number): void {
    this.#get(seq).deleted = 'pending';
  }

  deleteAcked(seq: number): void {
    this.#get(seq).deleted = 'acked';
  }

  /** Retention: every message with a key in [fromKey, toKey) is deleted, or being deleted. */
  markDeleted(fromKey: number, toKey: number, state: 'pending' | 'acked'): void {
    for (const message of this.#messages.values()) {
      if (message.key >= fromKey && message.key < toKey) message.deleted = state;
    }
  }

  /** Messages with a key below `keyBound` are on the device (a sync covered them). */
  markSyncedBelow(keyBound: number): void {
    for (const message of this.#messages.values()) {
      if (message.key < keyBound && message.sent === 'acked') message.durable = true;
    }
  }

  /** Acknowledged sends are synced when acknowledged (`always`, `group`). */
  markAckedDurable(): void {
    if (!this.rules.acksAreDurable) return;
    for (const message of this.#messages.values()) {
      if (message.sent === 'acked') message.durable = true;
    }
  }

  /**
   * Checks a body delivered under `key` while running; returns its sequence number, or null
   * (with a violation recorded) when it is not a message that may be delivered now. After a
   * reopen, deleted messages may be back (the rules in `afterRecovery` decide).
   */
  checkDelivered(key: number, body: Buffer, where: string, afterReopen = false): number | null {
    const seq = crashBodySeq(body);
    const message = seq === null ? undefined : this.#messages.get(seq);
    if (seq === null || message === undefined) {
      this.#violate(`${where}: delivered a message that was never sent at key ${key}`);
      return null;
    }
    if (!body.equals(this.body(seq))) {
      this.#violate(`${where}: delivered a corrupt body for message ${seq} at key ${key}`);
      return null;
    }
    if (message.key !== key) {
      this.#violate(`${where}: message ${seq} sent at key ${message.key} came back at ${key}`);
    }
    if (message.deleted === 'acked' && !afterReopen) {
      this.#violate(`${where}: message ${seq} delivered after its delete was acknowledged`);
    }
    return seq;
  }

  /**
   * After a crash and reopen: `found` is every message the reopened target delivered. Checks the
   * rules, then makes the model what the disk now holds.
   */
  afterRecovery(found: readonly Found[], where: string): RecoveryCheck {
    const present = this.#collect(found, where);
    let ackedChecked = 0;
    let lost = 0;
    for (const message of [...this.#messages.values()]) {
      const isPresent = present.has(message.seq);
      if (message.sent === 'acked' && message.deleted === 'no') {
        ackedChecked++;
        if (!isPresent) lost++;
        if (!isPresent && this.rules.acksAreDurable) {
          this.#violate(`${where}: acknowledged message ${message.seq} at key ${message.key} lost`);
        }
      }
      if (!isPresent && message.durable && message.deleted === 'no') {
        this.#violate(`${where}: durable message ${message.seq} at key ${message.key} lost`);
      }
      if (isPresent && message.deleted === 'acked' && this.rules.deletesAreDurable) {
        this.#violate(`${where}: message ${message.seq} came back after its delete was acked`);
      }
      this.#settle(message, isPresent);
    }
    return { ackedChecked, lost };
  }

  /** Found messages by sequence number; records unknown, damaged and repeated ones. */
  #collect(found: readonly Found[], where: string): Set<number> {
    const present = new Set<number>();
    for (const { key, body } of found) {
      const seq = this.checkDelivered(key, body, `${where} after reopening`, true);
      if (seq === null) continue;
      if (present.has(seq)) this.#violate(`${where}: message ${seq} delivered twice in one drain`);
      present.add(seq);
    }
    return present;
  }

  /** What survived is on the device now; what did not is gone for good. */
  #settle(message: MessageState, isPresent: boolean): void {
    if (!isPresent) {
      this.#messages.delete(message.seq);
      return;
    }
    message.durable = true;
    message.deleted = 'no';
  }

  #get(seq: number): MessageState {
    const message = this.#messages.get(seq);
    if (message === undefined) throw new Error(`crash model: no message ${seq}`);
    return message;
  }

  #violate(text: string): void {
    this.violations.push(text);
  }
}
