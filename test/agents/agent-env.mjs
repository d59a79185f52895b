// How the agent test tier points the real CLIs at a loopback stand-in with no network and no trace
// in the developer's own config: an isolated HOME (and CODEX_HOME), a fake API key, telemetry,
// auto-update and the CLIs' own retries off. Facts checked against Claude Code 2.1.332 and
// codex-cli 0.171.0.
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AGENT_CLIS, cliBin } from './clis.mjs';

export const CLIS_ROOT = process.env.HOLON_AGENT_CLIS || join(homedir(), '.cache', 'holon', 'agent-clis');
export const binOf = (name) => cliBin(CLIS_ROOT, AGENT_CLIS.find((c) => c.name === name));

/** The environment for `claude` against the Anthropic stand-in at `url`. */
export function claudeEnv(dir, url, extra = {}) {
  const home = join(dir, 'agent-home');
  mkdirSync(home, { recursive: true });
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-ant-standin',
    // Nothing but the model API: no telemetry, error reports, update checks or other side traffic.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // Claude Code retries 5xx/429 itself with backoff: not here, a failure must show at once.
    CLAUDE_CODE_MAX_RETRIES: '0',
    ...extra,
  };
}

/** The environment for `codex` against the Responses stand-in at `url`: its own CODEX_HOME with a provider. */
export function codexEnv(dir, url, extra = {}) {
  const home = join(dir, 'agent-home');
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-stand-in"',
      'model_provider = "standin"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.standin]',
      'name = "stand-in"',
      `base_url = "${url}/v1"`,
      'wire_api = "responses"',
      'env_key = "STANDIN_API_KEY"',
      // codex retries failed requests and reconnects broken streams itself: not here.
      'request_max_retries = 0',
      'stream_max_retries = 0',
      'stream_idle_timeout_ms = 10000',
      '',
    ].join('\n'),
  );
  return { HOME: home, CODEX_HOME: codexHome, STANDIN_API_KEY: 'sk-standin', ...extra };
}
