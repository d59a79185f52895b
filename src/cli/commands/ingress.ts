import { conflict } from '../../core/errors.js';
import { parseListen, urlHost } from '../../core/listen-address.js';
import { setStopped } from '../../store/agent-state.js';
import type { Home } from '../../store/home.js';
import { listAdmitted, listInbox } from '../../store/event-store.js';
import { issueToken, readTokens, revokeTokens } from '../../store/ingress-tokens.js';
import { liveWatcher } from '../../store/watcher-lock.js';
import type { Ctx } from '../context.js';
import { note, out, printJson } from '../output.js';

/** The address URLs are built from: the running watcher's (it may have picked a free port), else holon.yaml's. */
function baseUrl(home: Home): string {
  const w = liveWatcher(home);
  if (w?.listen) return `http://${w.listen}`;
  const { host, port } = parseListen(home.config.ingress.listen);
  return `http://${urlHost(host)}:${port}`;
}

async function issue(ctx: Ctx, rotated: boolean, json?: boolean): Promise<void> {
  const home = ctx.home();
  const agent = ctx.agent();
  const { token, stored, replaced } = await issueToken(home, agent, ctx.nowMs);
  const url = `${baseUrl(home)}/hooks/${token}`;
  if (json) return printJson({ agent, token_id: stored.id, url, created_at: stored.created_at, revoked: replaced });
  out(url);
  note(`${rotated ? 'rotated' : 'created'} ingress token ${stored.id} for ${agent}${replaced.length ? ` (revoked ${replaced.join(', ')})` : ''}.`);
  note('This URL is a secret and is shown only now: holon keeps only its hash. Keep it out of logs and git.');
}

/**
 * `holon ingress url`: creates the agent's token and prints its URL. Only a hash is stored, so the URL
 * of an existing token cannot be shown again: `url` then refuses (exit 5) and says to rotate.
 */
export async function runUrl(ctx: Ctx, _args: string[], opts: { json?: boolean }): Promise<void> {
  const home = ctx.home();
  const agent = ctx.agent();
  const existing = readTokens(home).find((t) => t.agent === agent);
  if (existing) {
    throw conflict(
      `agent ${agent} already has an ingress token (${existing.id}, created ${existing.created_at}); its URL cannot be shown again because only its hash is stored`,
      `run \`holon ingress rotate --agent ${agent}\` for a new URL (the old one stops working at once)`,
    );
  }
  await issue(ctx, false, opts.json);
}

export async function runRotate(ctx: Ctx, _args: string[], opts: { json?: boolean }): Promise<void> {
  await issue(ctx, true, opts.json);
}

export async function runRevoke(ctx: Ctx, _args: string[], opts: { json?: boolean }): Promise<void> {
  const agent = ctx.agent();
  const revoked = await revokeTokens(ctx.home(), agent);
  if (opts.json) return printJson({ agent, revoked });
  out(revoked.length ? `revoked ${revoked.join(', ')} for ${agent}: its URL now gets 403` : `${agent} had no ingress token; nothing changed`);
}

/** `holon agent stop NAME`: revokes its ingress tokens and stops the watcher from starting runs for it. */
export async function runAgentStop(ctx: Ctx, args: string[], opts: { json?: boolean }): Promise<void> {
  ctx.globals.agent = args[0];
  const agent = ctx.agent();
  const home = ctx.home();
  const revoked = await revokeTokens(home, agent);
  const changed = await setStopped(home, agent, true, ctx.actor, ctx.nowMs);
  if (opts.json) return printJson({ agent, stopped: true, changed, revoked });
  out(`${agent} ${changed ? 'stopped' : 'was already stopped'}: the watcher starts no runs for it${revoked.length ? `; revoked ingress token(s) ${revoked.join(', ')}` : ''}`);
  note(`undo with \`holon agent start ${agent}\` (ingress needs a new URL: \`holon ingress url --agent ${agent}\`)`);
}

export async function runAgentStart(ctx: Ctx, args: string[], opts: { json?: boolean }): Promise<void> {
  ctx.globals.agent = args[0];
  const agent = ctx.agent();
  const changed = await setStopped(ctx.home(), agent, false, ctx.actor, ctx.nowMs);
  if (opts.json) return printJson({ agent, stopped: false, changed });
  out(changed ? `${agent} started: the watcher may run it again` : `${agent} was not stopped; nothing changed`);
}

/**
 * `holon ingress show`: whether the agent has a live capability URL, since when, and when it was last
 * used (its newest accepted event). Never the token, nor its hash.
 */
export function runShow(ctx: Ctx, _args: string[], opts: { json?: boolean }): void {
  const home = ctx.home();
  const agent = ctx.agent();
  const token = readTokens(home).find((t) => t.agent === agent) ?? null;
  const used = token ? [...listInbox(home, agent), ...listAdmitted(home, agent)].filter((e) => e.provenance === `ingress:${token.id}`) : [];
  const last = used.map((e) => e.created_at).sort().at(-1) ?? null;
  const watcher = liveWatcher(home);
  const view = { agent, live: Boolean(token), token_id: token?.id ?? null, created_at: token?.created_at ?? null, last_used_at: last, events: used.length, listening: watcher?.listen ? `http://${watcher.listen}` : null };
  if (opts.json) return printJson(view);
  if (!token) return out(`${agent} has no ingress token: \`holon ingress url\` creates one`);
  out(`${agent}: ingress token ${token.id}, live since ${token.created_at}; ${last ? `last used ${last} (${used.length} event(s))` : 'never used'}`);
  out(view.listening ? `the watcher listens on ${view.listening}` : 'no watcher is listening: `holon watch --listen`');
}
