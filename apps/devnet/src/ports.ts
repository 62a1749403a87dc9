import { createServer } from 'node:net';

/**
 * Ports handed out below the kernel's ephemeral range (32768-60999 on Linux), where outgoing client
 * sockets take their source ports: a port picked there can be taken by some connection before the
 * server binds it. The devnet's SOCKS ports (21000-32080) and no-auth ports (17000-22100) sit above.
 */
const PICK_MIN = 10_000;
const PICK_SPAN = 7_000;

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** A free TCP port on `host` (tests and npm start's port 0: there is a short race before it is used). */
export async function getFreePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = PICK_MIN + Math.floor(Math.random() * PICK_SPAN);
    if (await canListen(port, host)) return port;
  }
  throw new Error(`no free port in ${PICK_MIN}-${PICK_MIN + PICK_SPAN - 1} on ${host}`);
}
