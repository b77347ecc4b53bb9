// The text of API keys and service keys, after GitHub's token format: a recognisable prefix that
// says what the key is, the key id (which finds its row), 256 bits of randomness, and a CRC32
// checksum, so a secret scanner can tell a real leaked key from a look-alike without asking us, and
// a mistyped key is refused without a database read.
//
//   gpk_ 3xT9aQ2mLk7B  <43 base62 characters: the secret>  <6: CRC32 of everything before, base62>
//   prefix  key id
//
// Only the SHA-256 of the whole key is stored: the key has 256 bits of entropy, so a fast hash is
// as good as a slow one here (nothing to brute-force), and it costs microseconds per request.
import { hash, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";
import { customAlphabet } from "nanoid";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export const KEY_KINDS = { api: "gpk", service: "gsk" } as const;
export type KeyKind = keyof typeof KEY_KINDS;

const ID_LENGTH = 12;
/** 43 base62 characters carry 43 × log2(62) ≈ 256.03 bits. */
const SECRET_LENGTH = 43;
const CHECKSUM_LENGTH = 6;

const newId = customAlphabet(BASE62, ID_LENGTH);
const newSecret = customAlphabet(BASE62, SECRET_LENGTH);

/** A 32-bit number as 6 base62 digits (62^6 > 2^32), most significant first. */
function base62Checksum(value: number): string {
  let rest = value;
  let digits = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    digits = BASE62.charAt(rest % 62) + digits;
    rest = Math.floor(rest / 62);
  }
  return digits;
}

const checksumOf = (body: string) => base62Checksum(crc32(body));

export interface NewKey {
  id: string;
  /** The whole key: shown to its owner once, never stored. */
  key: string;
  /** What lists show: the kind's prefix and the key id, e.g. "gpk_3xT9aQ2mLk7B". */
  prefix: string;
  /** Hex SHA-256 of the key: what is stored. */
  hash: string;
}

export function hashKey(key: string): string {
  return hash("sha256", key, "hex");
}

export function generateKey(kind: KeyKind): NewKey {
  const id = newId();
  const prefix = `${KEY_KINDS[kind]}_${id}`;
  const body = `${prefix}${newSecret()}`;
  const key = `${body}${checksumOf(body)}`;
  return { id, key, prefix, hash: hashKey(key) };
}

const SHAPE = new RegExp(
  `^(${Object.values(KEY_KINDS).join("|")})_([0-9A-Za-z]{${ID_LENGTH}})[0-9A-Za-z]{${SECRET_LENGTH}}([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

/** The kind and id of a well-formed key with a correct checksum; undefined for anything else. */
export function parseKey(text: string): { kind: KeyKind; id: string } | undefined {
  const match = SHAPE.exec(text);
  if (!match) return undefined;
  const [, prefix, id, checksum] = match as unknown as [string, string, string, string];
  if (checksumOf(text.slice(0, -CHECKSUM_LENGTH)) !== checksum) return undefined;
  const kind = (Object.keys(KEY_KINDS) as KeyKind[]).find((k) => KEY_KINDS[k] === prefix);
  return kind ? { kind, id } : undefined;
}

/**
 * Whether a text claims to be a service key, by its prefix alone: enough to choose how a request
 * authenticates (an access token never starts so), without the checksum's cost on every call. A
 * malformed one is then refused as the service key it claims to be.
 */
export const claimsServiceKey = (text: string): boolean => text.startsWith(`${KEY_KINDS.service}_`);

/**
 * The key id an operator's search names by an API key: a whole key's id, or for the start of one
 * ("gpk_3xT9…", copied from a support e-mail) that start, its trailing ellipsis, dots or spaces
 * cut; undefined for a text that is no API key. The consoles match ids that begin with it. Only an
 * id's length of characters counts, so a key with a typo in its secret still finds its id.
 */
export function searchedApiKeyId(text: string): string | undefined {
  const prefix = `${KEY_KINDS.api}_`;
  if (!text.startsWith(prefix)) return undefined;
  const start = text.slice(prefix.length, prefix.length + ID_LENGTH);
  return parseKey(text)?.id ?? start.replace(/[…. ]+$/u, "");
}

/** Whether `key` is the key whose stored hash is `storedHash` (constant time). */
export function keyMatches(key: string, storedHash: string): boolean {
  const actual = Buffer.from(hashKey(key), "hex");
  const expected = Buffer.from(storedHash, "hex");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
