import { ApiError, call, forgetToken, token } from './api.js';
import { clear, h, whenIdle } from './dom.js';
import { guardLeaving } from './editor-leave.js';
import { type LibraryView, libraryView } from './list.js';
import { newTemplateView } from './new-template.js';
import { refreshProposalCount } from './proposal-count.js';
import { type LiveEvent, type LiveState, startLive } from './live.js';
import { type SyncIndicator, syncIndicator } from './sync-indicator.js';
import type { RolePage } from './roles.js';
import type { Tab, TemplatePage } from './template-view.js';
import { PageValidator } from './validator.js';
import { ProposalHandoff } from './proposal-handoff.js';
import { loadMe, roleNote } from './me.js';
import type { RoleList } from '../schema/roles.js';
import type { TemplateList, TemplateSummary } from '../schema/templates.js';
import { errorText, unsay } from './ui.js';

/**
 * The settings page's router. Views are addressed by the URL hash so each is
 * linkable: `#/` the library, `#/templates/<name>[/card|/diff|/launch|/history]`,
 * `#/roles/<name>`, `#/new`, `#/proposals`, `#/launches`, `#/upgrade`.
 *
 * The template, role and proposals views need CodeMirror (the editor, the
 * merge views): about three quarters of the page's JavaScript. They are
 * imported when first opened, so the library list, the first view most
 * loads show, waits only for its own small part of the code; once the list
 * is drawn the rest is fetched in the background, so opening a template
 * does not wait for it either.
 */
const views = () => import('./views.js').catch(outdated);

/**
 * A view's code could not be fetched. Usually the service was updated while
 * this tab stayed open: the files this page names are gone (each build's
 * file names carry its content hash). A reload fetches the new page.
 */
class PageOutdated extends Error {}
function outdated(cause: unknown): never {
  throw new PageOutdated(`this view's code could not be fetched (${cause instanceof Error ? cause.message : String(cause)})`);
}
const main = document.getElementById('main')!;
/** the page's one validator: its Worker and catalogue serve every view that checks text (validator.ts) */
const validator = new PageValidator();
/** a proposal on its way from the proposals view to its template's editor (proposal-handoff.ts) */
const handoff = new ProposalHandoff();
/** the open template, or null */
let page: TemplatePage | null = null;
/** the open role, or null */
let rolePageOpen: RolePage | null = null;
/** the view with edits to keep: the open template or role */
const editing = (): TemplatePage | RolePage | null => page ?? rolePageOpen;
/** the list's filter and chip, kept for the tab across visits (list.ts) */
const listChoice = { filter: '', chip: '' };
/** the library list on the page, or null */
let list: LibraryView | null = null;

async function templates(): Promise<TemplateSummary[]> {
  return (await call<TemplateList>('GET', '/templates')).body.templates;
}

export function parseRoute(hash: string): { view: 'library' } | { view: 'new' } | { view: 'proposals' } | { view: 'launches' } | { view: 'upgrade' } | { view: 'template'; name: string; tab: Tab; rebase: boolean } | { view: 'role'; name: string } {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'templates' && parts[1]) {
    const tab = parts[2] === 'card' || parts[2] === 'diff' || parts[2] === 'launch' || parts[2] === 'history' ? parts[2] : 'source';
    // `/rebase` opens the source with the rebase preview (the upgrade view links a conflicting copy there)
    return { view: 'template', name: parts[1], tab, rebase: parts[2] === 'rebase' };
  }
  if (parts[0] === 'roles' && parts[1]) return { view: 'role', name: parts[1] };
  if (parts[0] === 'new') return { view: 'new' };
  if (parts[0] === 'proposals') return { view: 'proposals' };
  if (parts[0] === 'launches') return { view: 'launches' };
  if (parts[0] === 'upgrade') return { view: 'upgrade' };
  return { view: 'library' };
}

async function route(): Promise<void> {
  const r = parseRoute(location.hash);
  if (r.view === 'template' && page?.name === r.name) {
    page.show(r.tab);
    if (r.rebase) void page.openRebase();
    return;
  }
  page?.dispose();
  page = null;
  rolePageOpen?.dispose();
  rolePageOpen = null;
  unsay();
  void refreshProposalCount();
  const ticket = Symbol();
  current = ticket;
  clear(main);
  main.append(h('p', { class: 'loading' }, 'Loading…'));
  try {
    let view: HTMLElement;
    if (r.view === 'template') {
      const { TemplatePage } = await views();
      const p = new TemplatePage(r.name, templates, validator, handoff);
      await p.load();
      if (current !== ticket) {
        p.dispose(); // left while it loaded: never shown
        return;
      }
      page = p;
      p.show(r.tab);
      if (r.rebase) void p.openRebase();
      view = p.el;
      document.title = `${r.name} · desk library`;
    } else if (r.view === 'role') {
      const p = await (await views()).rolePage(r.name);
      if (current !== ticket) {
        p.dispose();
        return;
      }
      rolePageOpen = p;
      view = p.el;
      document.title = `role ${r.name} · desk library`;
    } else if (r.view === 'proposals') {
      // after a decision: drawn again, with the header's count
      view = await (await views()).proposalsView(() => void route(), handoff);
      document.title = 'proposals · desk library';
    } else if (r.view === 'launches') {
      // its own small module (launches.ts): no CodeMirror; after a decision it is drawn again
      view = await (await import('./launches.js').catch(outdated)).launchesView(() => void route());
      document.title = 'launches · desk library';
    } else if (r.view === 'upgrade') {
      // its own small module too (upgrade.ts); after an upgrade it is drawn again from the plan
      view = await (await import('./upgrade.js').catch(outdated)).upgradeView(() => void route());
      document.title = 'upgrade · desk library';
    } else if (r.view === 'new') {
      view = newTemplateView();
      document.title = 'new template · desk library';
    } else {
      const [t, roles] = await Promise.all([templates(), call<RoleList>('GET', '/roles')]);
      list = libraryView(t, roles.body.roles, listChoice);
      view = list.el;
      document.title = 'desk library';
    }
    if (current !== ticket) return;
    clear(main);
    main.append(view);
    // a view opened: the focus starts at its heading (the New template view then moves it to its first field);
    // the library's first heading comes after its filter and chips, so there the focus starts at the view itself
    // and Tab goes to the filter first, in the order the view is seen
    if (r.view === 'library') main.focus();
    else {
      const heading = main.querySelector<HTMLElement>('h2');
      heading?.setAttribute('tabindex', '-1');
      heading?.focus();
    }
    if (r.view === 'library') prefetchViews();
  } catch (e) {
    if (current !== ticket) return;
    clear(main);
    if (e instanceof PageOutdated) {
      main.append(
        h('p', { class: 'callout error', role: 'alert' }, 'This page is older than the service: it was probably updated since the page was opened. Reload to continue.'),
        h('p', {}, h('button', { type: 'button', class: 'primary', onclick: () => location.reload() }, 'Reload')),
      );
      return;
    }
    main.append(
      h('p', { class: 'callout error', role: 'alert' }, e instanceof ApiError && e.status === 404 ? `No template or role named ${r.view === 'template' || r.view === 'role' ? r.name : ''}.` : `Could not load: ${errorText(e)}`),
      h('p', {}, h('a', { href: '#/' }, 'Back to the library')),
    );
  }
}
let current: symbol | null = null;

/** After the list is drawn, when the page is idle: the other views' code, so opening one does not wait for it. */
function prefetchViews(): void {
  whenIdle(() => {
    views().catch(() => undefined); // a failure is reported when a view is opened
  }, 2000);
}

async function banner(): Promise<void> {
  try {
    const { body } = await call<{ library_root: string | null }>('GET', '/status');
    const el = document.getElementById('root-info');
    if (!el) return;
    el.textContent = body.library_root ? `library: ${body.library_root}` : 'no library root — everything is read-only';
    el.classList.toggle('warn', !body.library_root);
  } catch {
    // the banner is a nicety; the views report their own errors
  }
}

/** Unsaved text in the open template or role asks before any view replaces it (editor-leave.ts). */
const leave = guardLeaving({
  wouldLose: (hash) => {
    const open = editing();
    if (!open?.dirty) return false;
    const r = parseRoute(hash);
    // another tab of the same template keeps its page object, and so its text
    return !(page && r.view === 'template' && r.name === page.name);
  },
});
window.addEventListener('hashchange', () => {
  if (leave.allow()) void route();
});
window.addEventListener('beforeunload', (ev) => {
  if (editing()?.dirty) ev.preventDefault();
});
// Ctrl/Cmd+S on a template or a role saves it (the Save button's path) instead of saving the web page
document.addEventListener('keydown', (ev) => {
  const open = editing();
  if (!open || !(ev.ctrlKey || ev.metaKey) || ev.altKey || ev.shiftKey || ev.key.toLowerCase() !== 's') return;
  ev.preventDefault();
  void open.saveShortcut();
});
/**
 * The header names the user and role (from GET /me), when the desk knows
 * users; someone who cannot change the library is told so once, under the
 * header; a tab holding a token can sign out.
 */
function showMe(name: string | null, role: string): void {
  const header = document.querySelector('header.top');
  if (name !== null) header?.append(h('p', { id: 'who-am-i', class: 'root-info', 'data-role': role }, `${name} · ${role}`));
  if (token() !== null) header?.append(h('button', { type: 'button', id: 'sign-out', class: 'sign-out', onclick: signOut }, 'Sign out'));
  const note = roleNote();
  // a landmark of its own: axe wants all content in one, and this line is about the whole page
  if (note) header?.after(h('aside', { id: 'role-note', class: 'role-note', 'data-role': role, 'aria-label': 'Your role' }, note));
}
/** Forgets the tab's token and loads the page again, which then asks for one (the leave guard asks first about unsaved edits). */
function signOut(): void {
  forgetToken();
  location.reload();
}
// who the user is before the first view, which leaves out what the role cannot do (me.ts);
// the banner after the first view: its GET /status lists the library too, and the list view waits for no one;
// the events stream once the service has answered (and a token, if it wants one, was taken): no contact to lose before
void loadMe()
  .then((me) => showMe(me.name, me.role))
  .finally(() => {
    sync = syncIndicator(document.getElementById('sync-indicator') ?? document.createElement('p'));
    startLive(onEvent, connection);
    void route().finally(() => void banner());
  });
// shown only when the service syncs with a team remote; read once the page knows who it works for
let sync: SyncIndicator | null = null;

/**
 * Live updates (live.ts). The open list is drawn again in place — the
 * filter, its text and focus kept — a beat after the last event of a burst;
 * an open template is told when its ETag moved elsewhere.
 */
let relist: ReturnType<typeof setTimeout> | null = null;
async function redrawList(): Promise<void> {
  if (!list?.el.isConnected || parseRoute(location.hash).view !== 'library') return;
  try {
    // only the rows that changed are drawn again, so the filter, its caret and the focus stay (list.ts)
    await list.refresh();
  } catch {
    // a hint missed: the next event or a reload shows it
  }
}
/**
 * The events stream dropped (the service stopped, the network went): said
 * in a banner until it is back, because saves and live updates wait on it;
 * once back, what the page shows is read and checked again, since events
 * were missed meanwhile.
 */
function connection(state: LiveState): void {
  const el = document.getElementById('connection');
  if (!el) return;
  el.hidden = false;
  el.dataset.kind = state === 'lost' ? 'warning' : 'success';
  el.textContent =
    state === 'lost'
      ? 'Lost contact with the service: changes made elsewhere do not show, and saving waits until it is back.'
      : 'Back in contact with the service; what this page shows was read and checked again.';
  if (state === 'back') {
    validator.invalidateCatalogue();
    void page?.recheck();
    rolePageOpen?.changedElsewhere(null);
    sync?.refresh();
    if (relist) clearTimeout(relist);
    relist = setTimeout(() => void redrawList(), 100);
    setTimeout(() => {
      if (el.dataset.kind === 'success') el.hidden = true;
    }, 8000);
  }
}
function onEvent(e: LiveEvent): void {
  // a sync round says once for all its names: the list, the catalogue and an open template are read again
  if (e.type === 'template.changed' || e.type === 'role.changed' || e.type === 'library.synced' || e.type === 'library.upgraded' || e.type === 'resync') {
    // the names the page's validator checks against may have changed (validator.ts)
    validator.invalidateCatalogue();
    if (relist) clearTimeout(relist);
    relist = setTimeout(() => void redrawList(), 100);
  }
  if (e.type === 'template.changed' || e.type === 'role.changed' || e.type === 'library.synced') sync?.refresh();
  if (e.type === 'template.changed' && page?.name === e.data.name) page.changedElsewhere(e.data.etag);
  if (e.type === 'role.changed' && rolePageOpen?.name === e.data.name) rolePageOpen.changedElsewhere(e.data.etag);
  if (e.type === 'resync' || e.type === 'library.synced') void page?.recheck();
  if (e.type === 'proposal.created' || e.type === 'proposal.decided') {
    const kind = e.type === 'proposal.created' ? 'created' : 'decided';
    // an open Proposals view has its module loaded already; otherwise only the header's count changes
    if (main.querySelector('.proposals')) void views().then((m) => m.proposalHint(kind, e.data, () => void route()));
    else void refreshProposalCount();
  }
  // an open Launches view is drawn again, so a draft made or decided elsewhere shows at once — unless the
  // operator is writing in it (a dismissal's note): a redraw would drop that text
  const writing = main.querySelector('.launches :is(textarea, input):focus, .launches dialog[open]');
  if ((e.type === 'launch.drafted' || e.type === 'launch.decided') && main.querySelector('.launches') && !writing) void route();
  else if (e.type === 'launch.drafted' || e.type === 'launch.decided') void refreshProposalCount();
}
