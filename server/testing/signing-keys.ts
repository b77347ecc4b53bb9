// Signing keys for tests: made fresh for each test process (generating one takes well under 1 ms).
import { generateKeyPairSync } from "node:crypto";
import { loadSigningKeys, type SigningKeys } from "../auth/signing-keys.ts";

/** A new PKCS#8 PEM private key: Ed25519 (EdDSA) or P-256 (ES256). */
export function newSigningKeyPem(alg: "EdDSA" | "ES256" = "EdDSA"): string {
  const { privateKey } =
    alg === "EdDSA" ? generateKeyPairSync("ed25519") : generateKeyPairSync("ec", { namedCurve: "P-256" });
  return privateKey.export({ format: "pem", type: "pkcs8" }).toString();
}

export function newSigningKeys(
  alg: "EdDSA" | "ES256" = "EdDSA",
  retired: string[] = [],
): Promise<SigningKeys> {
  return loadSigningKeys(newSigningKeyPem(alg), retired);
}
