import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface SignOptions {
  /** Defaults to the issuer's ES256 key 'es-1'. */
  alg?: string;
  kid?: string;
  key?: SigningKey | Uint8Array;
  issuer?: string;
  audience?: string;
  /** Seconds from now; negative for an expired token. Default 300. */
  expiresInS?: number;
  /** The `iat` claim (Unix seconds); default 5 s ago. A test passes a later second instead of waiting. */
  issuedAtS?: number;
  /** JWS header `typ`; default 'at+jwt' (RFC 9068); '' leaves it out. */
  typ?: string;
}

export interface TestIssuer {
  /** Exact issuer URL (no trailing slash). */
  issuer: string;
  jwksUri: string;
  /** Signs an access token for `sub` with the given claims (`email_verified: true` unless they say otherwise). */
  sign(sub: string, claims?: JWTPayload, options?: SignOptions): Promise<string>;
  /** A key pair whose public half is NOT in the JWKS. */
  strangerKey: SigningKey;
  /** An RS256 key that IS in the JWKS (kid 'rs-1'), for "unlisted algorithm" checks. */
  rsaKey: SigningKey;
  /** Requests served, by path. */
  hits: Map<string, number>;
  /** Makes the discovery document answer 503 while true. */
  setDiscoveryDown(down: boolean): void;
  close(): Promise<void>;
}

/** A tiny OpenID issuer: discovery + JWKS on `host` (default 127.0.0.1), and a token signer. */
export async function startTestIssuer(audience: string, host = '127.0.0.1'): Promise<TestIssuer> {
  const es = await generateKeyPair('ES256', { extractable: true });
  const rs = await generateKeyPair('RS256', { extractable: true });
  const stranger = await generateKeyPair('ES256', { extractable: true });
  const keys: JWK[] = [
    { ...(await exportJWK(es.publicKey)), kid: 'es-1', alg: 'ES256', use: 'sig' },
    { ...(await exportJWK(rs.publicKey)), kid: 'rs-1', alg: 'RS256', use: 'sig' },
  ];
  const hits = new Map<string, number>();
  let discoveryDown = false;
  let issuer = '';
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res.setHeader('content-type', 'application/json');
    if (path === '/.well-known/openid-configuration' && !discoveryDown) {
      res.end(
        JSON.stringify({
          issuer,
          jwks_uri: `${issuer}/jwks`,
          id_token_signing_alg_values_supported: ['ES256'],
        }),
      );
    } else if (path === '/jwks') {
      res.end(JSON.stringify({ keys }));
    } else {
      res.statusCode = path === '/.well-known/openid-configuration' ? 503 : 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  issuer = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    strangerKey: stranger.privateKey,
    rsaKey: rs.privateKey,
    hits,
    setDiscoveryDown(down) {
      discoveryDown = down;
    },
    async sign(sub, claims = {}, o = {}) {
      const alg = o.alg ?? 'ES256';
      const now = Math.floor(Date.now() / 1000);
      // Customers of the tests have confirmed addresses unless a test says otherwise.
      return new SignJWT({ email_verified: true, ...claims })
        .setProtectedHeader({
          alg,
          kid: o.kid ?? 'es-1',
          ...(o.typ === '' ? {} : { typ: o.typ ?? 'at+jwt' }),
        })
        .setSubject(sub)
        .setIssuer(o.issuer ?? issuer)
        .setAudience(o.audience ?? audience)
        .setIssuedAt(o.issuedAtS ?? now - 5)
        .setExpirationTime(now + (o.expiresInS ?? 300))
        .sign(o.key ?? es.privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
