// The keys access tokens are signed and verified with: one current private key (Ed25519, or P-256
// for ES256) that signs every new token, and the public keys of earlier ones that still verify the
// tokens they signed until those expire. Each key is named by its RFC 7638 thumbprint, the `kid`
// of the tokens it signs and of its entry in the published JWKS (RFC 7517), so the generation
// service can verify tokens with no secret of ours.
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, type JWK } from "jose";

export type SigningAlgorithm = "EdDSA" | "ES256";

export interface PublicSigningKey {
  kid: string;
  alg: SigningAlgorithm;
  /** The public JWK as the JWKS publishes it. */
  jwk: JWK & { kid: string; alg: SigningAlgorithm; use: "sig" };
}

export interface SigningKeys {
  current: PublicSigningKey & { privateKey: KeyObject };
  /** Every key that verifies: the current one first, then the retired ones. */
  verifying: readonly PublicSigningKey[];
  /** `GET /.well-known/jwks.json`. */
  jwks: { keys: PublicSigningKey["jwk"][] };
}

/** A PEM from an environment variable may hold `\n` escapes instead of line breaks. */
export function unescapePem(text: string): string {
  return text.includes("\\n") ? text.replaceAll("\\n", "\n") : text;
}

function algorithmOf(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === "ed25519") return "EdDSA";
  if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1") return "ES256";
  throw new Error("must be an Ed25519 or P-256 (ES256) key");
}

/** Why a PEM cannot be a signing key, or undefined when it can (configuration checks). */
export function signingKeyProblem(pem: string, kind: "private" | "private or public"): string | undefined {
  try {
    const text = unescapePem(pem);
    algorithmOf(kind === "private" ? createPrivateKey(text) : createPublicKey(text));
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.startsWith("must be")
      ? message
      : `must be a PEM ${kind === "private" ? "private key" : "key"} (openssl genpkey -algorithm ed25519)`;
  }
}

async function publish(publicKey: KeyObject): Promise<PublicSigningKey> {
  const alg = algorithmOf(publicKey);
  const exported = publicKey.export({ format: "jwk" }) as JWK;
  const kid = await calculateJwkThumbprint(exported, "sha256");
  return { kid, alg, jwk: { ...exported, kid, alg, use: "sig" } };
}

/**
 * The current key from its PEM (PKCS#8 private key) and the retired keys from theirs (private or
 * public; only the public half is kept). Throws on a key that is neither Ed25519 nor P-256.
 */
export async function loadSigningKeys(
  currentPem: string,
  retiredPems: readonly string[] = [],
): Promise<SigningKeys> {
  const privateKey = createPrivateKey(unescapePem(currentPem));
  const current = { ...(await publish(createPublicKey(privateKey))), privateKey };
  const verifying: PublicSigningKey[] = [current];
  for (const pem of retiredPems) {
    const retired = await publish(createPublicKey(unescapePem(pem)));
    if (!verifying.some((k) => k.kid === retired.kid)) verifying.push(retired);
  }
  return {
    current,
    verifying,
    jwks: { keys: verifying.map((k) => k.jwk) },
  };
}
