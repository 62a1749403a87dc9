import { readFileSync } from 'node:fs';
import Router from '@koa/router';

const read = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

/** The pages' static files: stylesheet, favicon, and the one script (the app's own sign-out submits itself). */
const FILES: Array<{ paths: string[]; type: string; body: string }> = [
  { paths: ['/assets/style.css'], type: 'text/css; charset=utf-8', body: read('style.css') },
  { paths: ['/assets/logout.js'], type: 'text/javascript; charset=utf-8', body: read('logout.js') },
  // Browsers ask for /favicon.ico on pages without a link (oidc-provider's own form-post pages).
  { paths: ['/favicon.svg', '/favicon.ico'], type: 'image/svg+xml', body: read('favicon.svg') },
];

export function createAssetRouter(): Router {
  const router = new Router();
  for (const file of FILES) {
    for (const path of file.paths) {
      router.get(path, (ctx) => {
        ctx.type = file.type;
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.body = file.body;
      });
    }
  }
  return router;
}
