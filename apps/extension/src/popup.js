// The popup: asks the service worker (background.js) for everything.
import { leaseLabel } from './lib.js';

const $ = (id) => document.getElementById(id);
const DEFAULT_SITE = '__DEFAULT_SITE__';

async function send(type, extra = {}) {
  const answer = await chrome.runtime.sendMessage({ type, ...extra });
  if (!answer?.ok) throw new Error(answer?.error ?? 'The add-on did not answer');
  return answer.result;
}

function showError(e) {
  $('error').textContent = e ? String(e.message ?? e) : '';
}

async function renderLeases(applied) {
  const list = $('leases');
  list.textContent = 'Loading…';
  const leases = await send('leases');
  list.textContent = '';
  if (leases.length === 0) {
    list.textContent = 'No active proxies found';
    return;
  }
  for (const lease of leases) {
    const li = document.createElement('li');
    li.dataset.leaseId = lease.id;
    const label = document.createElement('span');
    label.textContent = leaseLabel(lease);
    const use = document.createElement('button');
    const active = applied?.leaseId === lease.id;
    use.textContent = active ? 'In use' : 'Use';
    use.disabled = active;
    use.className = 'secondary';
    use.setAttribute('aria-label', `Use ${lease.id}`);
    use.addEventListener('click', async () => {
      showError(null);
      use.disabled = true;
      try {
        await send('apply', { leaseId: lease.id });
        await render();
      } catch (e) {
        showError(e);
        use.disabled = false;
      }
    });
    if (active) li.className = 'active';
    li.append(label, use);
    list.append(li);
  }
}

async function render() {
  const s = await send('status');
  $('signed-out').hidden = s.signedIn;
  $('signed-in').hidden = !s.signedIn;
  showError(s.lastError);
  if (!s.signedIn) {
    $('site').value = s.siteUrl ?? (DEFAULT_SITE.startsWith('http') ? DEFAULT_SITE : '');
    return;
  }
  $('applied').textContent = s.applied
    ? `This browser uses ${s.applied.node}:${s.applied.port} (no-auth port, your address ${s.applied.ip} whitelisted).`
    : 'Direct connection: no proxy in use.';
  await renderLeases(s.applied);
}

$('sign-in').addEventListener('click', async () => {
  showError(null);
  try {
    await send('signIn', { siteUrl: $('site').value.trim() });
  } catch (e) {
    showError(e);
  }
});
$('sign-out').addEventListener('click', () => send('signOut').then(render, showError));
$('direct').addEventListener('click', () => send('clear').then(render, showError));
$('refresh').addEventListener('click', () => render().catch(showError));
// Signing in finishes in the service worker; show it when it does.
chrome.storage.onChanged.addListener((changes) => {
  if (changes.tokens) render().catch(showError);
});

render().catch(showError);
