import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/** A self-signed certificate for 127.0.0.1 and localhost, made for this run (openssl from the OS). */
export async function selfSignedCert(): Promise<{ certFile: string; keyFile: string; cert: Buffer }> {
  const dir = await mkdtemp(join(tmpdir(), "gw-tls-"));
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  await promisify(execFile)("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=IP:127.0.0.1,DNS:localhost",
    "-days",
    "1",
    "-keyout",
    keyFile,
    "-out",
    certFile,
  ]);
  return { certFile, keyFile, cert: await readFile(certFile) };
}
