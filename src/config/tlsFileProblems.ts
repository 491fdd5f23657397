import { createPrivateKey, X509Certificate, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { TlsSettings } from "./tlsSettingsSchema.js";

/** One unusable TLS setting: which key (`certFile`, `keyFile`) and why, naming the file. */
export interface TlsFileProblem {
  key: "certFile" | "keyFile";
  message: string;
}

async function readPem(file: string): Promise<{ text?: string; error?: string }> {
  try {
    return { text: await readFile(file, "utf8") };
  } catch (error) {
    return {
      error: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
}

/**
 * Whether a listener's certificate and key files exist, parse (PEM X.509 certificate, unencrypted private
 * key) and belong together: what the TLS server would otherwise refuse only at start-up, or never say.
 */
export async function tlsFileProblems(tls: TlsSettings): Promise<TlsFileProblem[]> {
  const problems: TlsFileProblem[] = [];
  const [cert, key] = await Promise.all([readPem(tls.certFile), readPem(tls.keyFile)]);
  let certificate: X509Certificate | undefined;
  let privateKey: KeyObject | undefined;
  if (cert.error !== undefined) problems.push({ key: "certFile", message: cert.error });
  else {
    try {
      certificate = new X509Certificate(cert.text as string);
    } catch {
      problems.push({ key: "certFile", message: `${tls.certFile} is not a PEM X.509 certificate` });
    }
  }
  if (key.error !== undefined) problems.push({ key: "keyFile", message: key.error });
  else {
    try {
      privateKey = createPrivateKey(key.text as string);
    } catch {
      problems.push({
        key: "keyFile",
        message: `${tls.keyFile} is not a PEM private key (or is encrypted: the gateway takes no passphrase)`,
      });
    }
  }
  if (certificate && privateKey && !certificate.checkPrivateKey(privateKey)) {
    problems.push({ key: "keyFile", message: `${tls.keyFile} is not the private key of ${tls.certFile}` });
  }
  return problems;
}
