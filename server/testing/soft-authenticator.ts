// A passkey in software for API tests: an ES256 key pair that answers WebAuthn's create and get
// ceremonies the way an authenticator and a browser would (attestation "none", user present and
// verified), so the server's checks run against real signatures. The browser journeys use
// Chromium's own virtual authenticator instead.
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";

// --- the little of CBOR (RFC 8949) that an attestation and a COSE key need ---
function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
}
type Cbor = number | string | Buffer | Map<number | string, Cbor>;
function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string")
    return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

const b64url = (bytes: Buffer) => bytes.toString("base64url");
const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();

export interface SoftPasskey {
  id: string;
  /** The answer to POST /v1/users/me/passkeys/options, as navigator.credentials.create gives it. */
  create(options: { challenge: string; rp: { id?: string } }, origin: string): Record<string, unknown>;
  /** The answer to POST /v1/passkeys/options, as navigator.credentials.get gives it. */
  get(options: { challenge: string; rpId?: string }, origin: string): Record<string, unknown>;
  /** Sets the signature counter the next answer reports (a cloned key goes backwards). */
  setCounter(n: number): void;
  /** The private key in the forms it could leak in: JWK `d`, PKCS#8 in Base64 and Base64URL. */
  privateMaterial(): string[];
}

export function softPasskey(): SoftPasskey {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const credentialId = randomBytes(16);
  const id = b64url(credentialId);
  let counter = 0;
  const coseKey = cbor(
    new Map<number, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x ?? "", "base64url")],
      [-3, Buffer.from(jwk.y ?? "", "base64url")],
    ]),
  );
  const clientData = (type: string, challenge: string, origin: string) =>
    Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  /** rpIdHash, flags (UP, UV, and AT when a credential is attached), counter. */
  const authData = (rpId: string, attested: boolean) => {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const flags = Buffer.from([0x01 | 0x04 | (attested ? 0x40 : 0)]);
    const base = Buffer.concat([sha256(rpId), flags, count]);
    if (!attested) return base;
    const idLength = Buffer.from([0, credentialId.length]);
    return Buffer.concat([base, Buffer.alloc(16), idLength, credentialId, coseKey]);
  };
  return {
    id,
    setCounter(n) {
      counter = n;
    },
    privateMaterial() {
      const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
      return [String(privateKey.export({ format: "jwk" }).d), pkcs8.toString("base64"), b64url(pkcs8)];
    },
    create(options, origin) {
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const attestation = cbor(
        new Map<string, Cbor>([
          ["fmt", "none"],
          ["attStmt", new Map()],
          ["authData", authData(rpId, true)],
        ]),
      );
      return {
        id,
        rawId: id,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(clientData("webauthn.create", options.challenge, origin)),
          attestationObject: b64url(attestation),
          transports: ["internal"],
        },
      };
    },
    get(options, origin) {
      counter += 1;
      const rpId = options.rpId ?? new URL(origin).hostname;
      const data = authData(rpId, false);
      const client = clientData("webauthn.get", options.challenge, origin);
      const signature = sign("sha256", Buffer.concat([data, sha256(client)]), privateKey);
      return {
        id,
        rawId: id,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(client),
          authenticatorData: b64url(data),
          signature: b64url(signature),
          userHandle: null,
        },
      };
    },
  };
}
