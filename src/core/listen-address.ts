import { invalid } from './errors.js';

/** Splits HOST:PORT ([::1]:PORT for IPv6) and refuses anything that is not loopback. */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(value.trim());
  const fix = 'use a loopback address such as 127.0.0.1:7420 (put a reverse proxy in front to expose it)';
  if (!m) throw invalid(`listen address "${value}" is not HOST:PORT`, fix);
  const host = m[1] === 'localhost' ? '127.0.0.1' : m[1];
  const port = Number(m[2]);
  if (port > 65535) throw invalid(`port ${port} is out of range`, fix);
  const v4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) && host.split('.').every((p) => Number(p) <= 255);
  if (!v4 && host !== '::1') throw invalid(`refusing to listen on ${host}: ingress is served on loopback only`, fix);
  return { host, port };
}

/** A host as it goes in a URL. */
export const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);
