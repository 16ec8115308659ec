// The native cluster's mutual-TLS material, issued with the `openssl` command line: Node's crypto
// reads and verifies X.509 certificates but cannot issue them. Two private CAs keep the two kinds of
// peer apart: the server CA signs the server's own certificate (frontend, internode ports, system
// worker) and is all the internode ports accept, so a client certificate never opens history or
// matching directly; the client CA signs the certificates tideline's clients present to the
// frontend. Every file is written 0600 in a 0700 directory. Checked at every `up` with Node's
// X509Certificate: a missing, foreign or soon-expiring certificate is issued again.
import { X509Certificate, createPrivateKey, randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { StackError } from '../stack/stack-error';
import { runCommand } from './processes';

/** What the server's certificate names: clients reach it as localhost or 127.0.0.1. */
export const TLS_SERVER_NAME = 'localhost';

export const OPENSSL_MISSING =
  'the `openssl` command line is not on PATH, and Node cannot issue X.509 certificates itself (its crypto only reads them)';

export interface ClusterCertificates {
  dir: string;
  /** The server CA: clients trust it (TEMPORAL_TLS_SERVER_CA_CERT_PATH); the internode ports accept only it. */
  serverCa: string;
  serverCaKey: string;
  /** The server's certificate, for localhost and 127.0.0.1, usable as server and as client. */
  serverCert: string;
  serverKey: string;
  /** The client CA: the frontend accepts certificates it signed. */
  clientCa: string;
  clientCaKey: string;
  /** The client certificate tideline's clients (workers, CLI, `cluster up` itself) present. */
  clientCert: string;
  clientKey: string;
  /** The extension sections used to issue them (for issuing more client certificates by hand). */
  opensslConfig: string;
}

export function certificateFiles(dir: string): ClusterCertificates {
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    serverCa: file('server-ca.pem'),
    serverCaKey: file('server-ca.key'),
    serverCert: file('server.pem'),
    serverKey: file('server.key'),
    clientCa: file('client-ca.pem'),
    clientCaKey: file('client-ca.key'),
    clientCert: file('client.pem'),
    clientKey: file('client.key'),
    opensslConfig: file('openssl.cnf'),
  };
}

/** The `openssl` executable on the PATH of `env`, or undefined. */
export function findOpenssl(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'openssl');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const OPENSSL_CONFIG = [
  '# Written by `tideline cluster up --mtls`: the extensions of the cluster certificates.',
  '[req]',
  'distinguished_name = dn',
  'prompt = no',
  '[dn]',
  'CN = tideline',
  '[ca]',
  'basicConstraints = critical, CA:TRUE, pathlen:0',
  'keyUsage = critical, keyCertSign, cRLSign',
  'subjectKeyIdentifier = hash',
  '[server]',
  'basicConstraints = critical, CA:FALSE',
  'keyUsage = critical, digitalSignature',
  // clientAuth too: the server presents the same certificate to its own internode ports.
  'extendedKeyUsage = serverAuth, clientAuth',
  `subjectAltName = DNS:${TLS_SERVER_NAME}, IP:127.0.0.1`,
  'subjectKeyIdentifier = hash',
  'authorityKeyIdentifier = keyid',
  '[client]',
  'basicConstraints = critical, CA:FALSE',
  'keyUsage = critical, digitalSignature',
  'extendedKeyUsage = clientAuth',
  'subjectKeyIdentifier = hash',
  'authorityKeyIdentifier = keyid',
  '',
].join('\n');

const CA_DAYS = 3650;
const LEAF_DAYS = 825;
/** A certificate expiring sooner than this is issued again at `up`. */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

/** An empty file of mode 0600 for openssl to write into (it keeps the mode of a file it truncates). */
function privateFile(file: string): string {
  writeFileSync(file, '', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

async function openssl(binary: string, args: string[]): Promise<void> {
  const result = await runCommand(binary, args, { timeoutMs: 60_000 });
  if (result.status !== 0) {
    throw new StackError(
      'CLUSTER_START_FAILED',
      `openssl ${args[0] ?? ''} failed (exit ${result.status}): ${result.output.trim().slice(-1_000)}`,
      'check that `openssl version` works (OpenSSL 1.1.1 or newer)',
    );
  }
}

async function newKey(binary: string, file: string): Promise<void> {
  await openssl(binary, [
    'genpkey',
    '-algorithm',
    'EC',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-out',
    privateFile(file),
  ]);
}

async function newCa(binary: string, files: ClusterCertificates, cert: string, key: string, name: string) {
  await newKey(binary, key);
  const subject = `/O=tideline/CN=tideline cluster ${name} CA ${randomBytes(4).toString('hex')}`;
  await openssl(binary, [
    'req',
    '-x509',
    '-new',
    '-key',
    key,
    '-subj',
    subject,
    '-days',
    String(CA_DAYS),
    '-sha256',
    '-config',
    files.opensslConfig,
    '-extensions',
    'ca',
    '-out',
    privateFile(cert),
  ]);
}

async function newLeaf(
  binary: string,
  files: ClusterCertificates,
  leaf: { cert: string; key: string; ca: string; caKey: string; section: 'server' | 'client'; cn: string },
): Promise<void> {
  await newKey(binary, leaf.key);
  const csr = privateFile(`${leaf.cert}.csr`);
  try {
    await openssl(binary, [
      'req',
      '-new',
      '-key',
      leaf.key,
      '-subj',
      `/O=tideline/CN=${leaf.cn}`,
      '-config',
      files.opensslConfig,
      '-out',
      csr,
    ]);
    await openssl(binary, [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      leaf.ca,
      '-CAkey',
      leaf.caKey,
      '-set_serial',
      `0x${randomBytes(16).toString('hex')}`,
      '-days',
      String(LEAF_DAYS),
      '-sha256',
      '-extfile',
      files.opensslConfig,
      '-extensions',
      leaf.section,
      '-out',
      privateFile(leaf.cert),
    ]);
  } finally {
    rmSync(csr, { force: true });
  }
}

function readCertificate(file: string): X509Certificate | undefined {
  try {
    return new X509Certificate(readFileSync(file));
  } catch {
    return undefined;
  }
}

function fresh(cert: X509Certificate): boolean {
  return Date.parse(cert.validTo) - Date.now() > RENEW_BEFORE_MS;
}

/** The pair is usable: both files, the key matches, not expiring soon, and (for a leaf) signed by `ca`. */
function usable(certFile: string, keyFile: string, ca?: X509Certificate): boolean {
  const cert = readCertificate(certFile);
  if (cert === undefined || !existsSync(keyFile) || !fresh(cert)) return false;
  if (ca !== undefined && !(cert.checkIssued(ca) && cert.verify(ca.publicKey))) return false;
  try {
    return cert.checkPrivateKey(createPrivateKey(readFileSync(keyFile)));
  } catch {
    return false;
  }
}

/**
 * The cluster's certificates in `dir`, issuing whatever is missing, damaged or expiring within 30
 * days (a new CA re-issues the certificates it signs). Throws CLUSTER_START_FAILED without openssl.
 */
export async function ensureCertificates(dir: string, env: NodeJS.ProcessEnv): Promise<ClusterCertificates> {
  const files = certificateFiles(dir);
  const pairs = [
    { ca: files.serverCa, caKey: files.serverCaKey, cert: files.serverCert, key: files.serverKey },
    { ca: files.clientCa, caKey: files.clientCaKey, cert: files.clientCert, key: files.clientKey },
  ] as const;
  const leafUsable = (pair: (typeof pairs)[number]) => {
    const ca = readCertificate(pair.ca);
    return ca !== undefined && usable(pair.ca, pair.caKey) && usable(pair.cert, pair.key, ca);
  };
  if (pairs.every(leafUsable)) return files;
  const binary = findOpenssl(env);
  if (binary === undefined) {
    throw new StackError(
      'CLUSTER_START_FAILED',
      `cannot issue the cluster's TLS certificates: ${OPENSSL_MISSING}`,
      'install OpenSSL (e.g. `apt-get install openssl`), or start the cluster without --mtls',
    );
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  writeFileSync(files.opensslConfig, OPENSSL_CONFIG, { mode: 0o600 });
  for (const [index, pair] of pairs.entries()) {
    const server = index === 0;
    const newCaNeeded = !usable(pair.ca, pair.caKey);
    if (newCaNeeded) await newCa(binary, files, pair.ca, pair.caKey, server ? 'server' : 'client');
    if (newCaNeeded || !leafUsable(pair)) {
      await newLeaf(binary, files, {
        ...pair,
        section: server ? 'server' : 'client',
        cn: server ? TLS_SERVER_NAME : 'tideline-client',
      });
    }
  }
  return files;
}
