// What an adversarial pass over the proxy's configuration and principals found, each case first
// reproduced: header values that would break every run, `__proto__` names that vanished, URLs
// whose credentials errors echoed, JWT keys that took any audience, a JWT principal sharing a
// static token's limits, and secrets in a file every user may read.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AguiEventInput, RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { createNodeProxyHandler, parseProxyConfig, ProxyConfigError } from "../../src/proxy/index.js";
import { runProxyCommand } from "../../src/proxy/command.js";
import { listen, type TestServer } from "../client/helpers.js";
import { post, readEvents, runInput } from "../server/helpers.js";

const SECRET = "a-32-byte-or-longer-shared-secret!!";
const base = { agents: { echo: { url: "http://127.0.0.1:9/agent" } }, auth: { tokens: [{ token: "t-alice", subject: "alice" }] } };

/** The message `parseProxyConfig` throws for `config`. */
function refusal(config: unknown): string {
  try {
    parseProxyConfig(config);
  } catch (error) {
    expect(error).toBeInstanceOf(ProxyConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the configuration to be refused, found it accepted");
}

describe("the proxy's configuration check", () => {
  it("refuses a route header value with CR LF (or any control character but HTAB), without echoing it", () => {
    const message = refusal({ ...base, agents: { echo: { url: "http://127.0.0.1:9/agent", headers: { "x-key": "s3cret\r\nx-evil: 1" } } } });
    expect(message).toContain('agents.echo.headers["x-key"]: expected a header value without control characters, found U+000D at index 6');
    expect(message).not.toContain("s3cret");
    expect(refusal({ ...base, agents: { echo: { url: "http://127.0.0.1:9/agent", headers: { "x-key": "a\u0000b" } } } })).toContain("found U+0000 at index 1");
    expect(() => parseProxyConfig({ ...base, agents: { echo: { url: "http://127.0.0.1:9/agent", headers: { "x-key": "tab\there" } } } })).not.toThrow();
  });

  it("names an agent or a header called __proto__, which a copy of the object would drop without a word", () => {
    const agents = JSON.parse('{ "__proto__": { "url": "http://127.0.0.1:9/a" }, "echo": { "url": "http://127.0.0.1:9/b" } }') as unknown;
    expect(refusal({ ...base, agents })).toContain('agents.__proto__: expected a name other than "__proto__"');
    const headers = JSON.parse('{ "__proto__": "x" }') as unknown;
    expect(refusal({ ...base, agents: { echo: { url: "http://127.0.0.1:9/agent", headers } } })).toContain('agents.echo.headers.__proto__: expected a name other than "__proto__"');
  });

  it("masks the credentials of a URL it refuses", () => {
    const message = refusal({ ...base, agents: { echo: { url: "ftp://user:s3cret@files.example/agent" } } });
    expect(message).toContain('agents.echo.url: expected an http: or https: URL, found "ftp://***@files.example/agent"');
    expect(message).not.toContain("s3cret");
    const jwks = refusal({ ...base, auth: { jwt: { jwksUrl: "ldap://admin:hunter2@keys.example/jwks", audience: "agui" } } });
    expect(jwks).toContain('found "ldap://***@keys.example/jwks"');
    expect(jwks).not.toContain("hunter2");
  });

  it("asks a public key or a JWKS for the audience, unless told that any will do", () => {
    const key = "-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----";
    for (const jwt of [{ publicKey: key }, { publicKeyFile: "key.pem" }, { jwksUrl: "https://issuer.example/jwks" }]) {
      expect(refusal({ ...base, auth: { jwt } })).toContain("auth.jwt.audience: expected the audience this proxy's tokens are issued for");
      expect(() => parseProxyConfig({ ...base, auth: { jwt: { ...jwt, audience: "agui" } } })).not.toThrow();
      expect(() => parseProxyConfig({ ...base, auth: { jwt: { ...jwt, acceptAnyAudience: true } } })).not.toThrow();
    }
    expect(refusal({ ...base, auth: { jwt: { publicKey: key, audience: "agui", acceptAnyAudience: true } } })).toContain("expected audience or acceptAnyAudience, found both");
    // A shared secret is this deployment's own: no other audience holds it.
    expect(() => parseProxyConfig({ ...base, auth: { jwt: { secret: SECRET } } })).not.toThrow();
  });
});

describe("principals", () => {
  let upstream: TestServer;
  let proxy: TestServer;
  const gates: (() => void)[] = [];
  beforeAll(async () => {
    // Each run waits until the test lets it finish: it holds its caller's slot until then.
    upstream = await listen(
      createNodeHandler(async function* (input: RunAgentInput): AsyncGenerator<AguiEventInput> {
        yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
        await new Promise<void>((resolve) => gates.push(resolve));
        yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
      }),
    );
    proxy = await listen(
      createNodeProxyHandler({
        agents: { held: { url: upstream.url } },
        auth: { tokens: [{ token: "t-alice", subject: "alice" }], jwt: { secret: SECRET, audience: "agui" } },
        limits: { concurrentRuns: 1 },
      }),
    );
  });
  afterAll(async () => {
    for (const release of gates) release();
    await proxy?.close();
    await upstream?.close();
  });

  it("are told apart by how they authenticated: a JWT whose sub is a static token's subject has limits of its own", async () => {
    const url = `${proxy.origin}/agents/held`;
    const jwt = await new SignJWT({ sub: "alice" }).setProtectedHeader({ alg: "HS256" }).setAudience("agui").setExpirationTime("1h").sign(new TextEncoder().encode(SECRET));
    const first = await post(url, runInput(), "text/event-stream", { headers: { authorization: "Bearer t-alice" } });
    expect(first.status).toBe(200);
    // The static token's one slot is taken...
    const second = await post(url, runInput(), "text/event-stream", { headers: { authorization: "Bearer t-alice" } });
    expect(second.status).toBe(429);
    await second.body?.cancel();
    // ...and the JWT's "alice" is not that principal.
    const viaJwt = await post(url, runInput(), "text/event-stream", { headers: { authorization: `Bearer ${jwt}` } });
    expect(viaJwt.status).toBe(200);
    while (gates.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const release of gates.splice(0)) release();
    expect((await readEvents(first)).at(-1)?.type).toBe("RUN_FINISHED");
    expect((await readEvents(viaJwt)).at(-1)?.type).toBe("RUN_FINISHED");
  });
});

describe("the command", () => {
  const dir = mkdtempSync(join(tmpdir(), "agui-proxy-secrets-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the command on `file` and returns what it wrote to stderr before listening. */
  async function stderrOf(file: string): Promise<string[]> {
    const stderr: string[] = [];
    const server = await runProxyCommand(["proxy", "--config", file, "--port", "0"], { stdout: () => {}, stderr: (line) => stderr.push(line) });
    expect(typeof server).not.toBe("number");
    await new Promise<void>((resolve) => (server as Server).close(() => resolve()));
    expect(((server as Server).address() as AddressInfo | null) ?? undefined).toBeUndefined();
    return stderr;
  }

  it.skipIf(process.platform === "win32")("warns when a configuration holding secrets may be read by every user, and not when only its owner may", async () => {
    const file = join(dir, "proxy.json");
    writeFileSync(file, JSON.stringify({ ...base, agents: { echo: { url: "http://127.0.0.1:9/agent", headers: { authorization: "Bearer upstream" } } } }));
    chmodSync(file, 0o644);
    const warned = await stderrOf(file);
    expect(warned).toEqual([
      `agui-wire proxy: warning: ${JSON.stringify(file)} holds static tokens, route headers and every user of this machine may read it (mode 644): expected it readable by its owner alone (chmod 600)`,
    ]);
    chmodSync(file, 0o600);
    expect(await stderrOf(file)).toEqual([]);
    // Nothing secret in it (a JWKS URL and its audience): nothing to warn of.
    writeFileSync(file, JSON.stringify({ agents: base.agents, auth: { jwt: { jwksUrl: "https://issuer.example/jwks", audience: "agui" } } }));
    chmodSync(file, 0o644);
    expect(await stderrOf(file)).toEqual([]);
  });
});

describe("refusals", () => {
  let proxy: TestServer;
  beforeAll(async () => {
    proxy = await listen(createNodeProxyHandler({ agents: { echo: { url: "http://127.0.0.1:9/agent" } }, auth: { tokens: [{ token: "t-alice", subject: "alice" }] } }));
  });
  afterAll(() => proxy?.close());

  it("close the connection of an upload they do not read, rather than reading it to its end", async () => {
    const { port } = new URL(proxy.origin);
    const socket = connect(Number(port), "127.0.0.1");
    socket.on("error", () => {});
    let answer = "";
    socket.setEncoding("latin1").on("data", (text: string) => (answer += text));
    let closed = false;
    const ended = new Promise<void>((resolve) => socket.once("close", () => resolve((closed = true) && undefined)));
    socket.write("POST /agents/echo HTTP/1.1\r\nHost: proxy\r\nAuthorization: Bearer wrong\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    // An upload with no end: 64 KiB chunks until the proxy closes, or far more than the kernel's
    // buffers could hold for it (about 32 MiB on loopback here) if it reads them all.
    const payload = Buffer.alloc(64 * 1024, 0x20);
    const chunk = Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from("\r\n")]);
    const cap = 160 * 1024 * 1024;
    let sent = 0;
    while (!closed && sent < cap) {
      sent += chunk.length;
      if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), ended]);
    }
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(closed).toBe(true);
    expect(sent).toBeLessThan(96 * 1024 * 1024);
  });

  it("keep the connection of a request that sends no body", async () => {
    const answer = await fetch(`${proxy.origin}/agents`, { headers: { authorization: "Bearer wrong" } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("connection")).not.toBe("close");
    await answer.body?.cancel();
  });
});

describe("a silent upstream", () => {
  const opened: TestServer[] = [];
  afterAll(() => Promise.all(opened.map((s) => s.close())));

  /** A proxy in front of `upstream` with `limits`, asked for SSE by the client. */
  async function through(upstream: TestServer, limits: Record<string, number>): Promise<string> {
    const proxy = await listen(createNodeProxyHandler({ agents: { quiet: { url: upstream.url } }, auth: { tokens: [{ token: "t-alice", subject: "alice" }] }, limits }, { onError: () => {} }));
    opened.push(proxy, upstream);
    return `${proxy.origin}/agents/quiet`;
  }
  const sse = (event: object): string => `data: ${JSON.stringify(event)}\n\n`;
  const started = { type: "RUN_STARTED", threadId: "thread-1", runId: "run-1" };

  it("ends the run with RUN_ERROR upstream_idle once an SSE upstream has sent nothing for idleTimeoutMs", async () => {
    const upstream = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(sse(started));
    });
    const response = await post(await through(upstream, { idleTimeoutMs: 300 }), runInput(), "text/event-stream", { headers: { authorization: "Bearer t-alice" } });
    const events = await readEvents(response);
    // The upstream declared no version: the proxy declares what its stream speaks.
    expect(events).toEqual([{ ...started, protocolVersion: "1.1" }, { type: "RUN_ERROR", code: "upstream_idle", message: "the upstream agent sent nothing for too long" }]);
    await upstream.closedEarly;
  });

  it("counts an SSE upstream's comments as signs of life", async () => {
    const upstream = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(sse(started));
      let beats = 0;
      const timer = setInterval(() => {
        if (++beats < 8) return void res.write(": alive\n\n");
        clearInterval(timer);
        res.end(sse({ type: "RUN_FINISHED", threadId: "thread-1", runId: "run-1" }));
      }, 60);
    });
    const response = await post(await through(upstream, { idleTimeoutMs: 250 }), runInput(), "text/event-stream", { headers: { authorization: "Bearer t-alice" } });
    expect((await readEvents(response)).map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
  });

  it("stops a quiet binary upstream's agent when idleTimeoutMs passes", async () => {
    let aborted!: () => void;
    const agentStopped = new Promise<void>((resolve) => (aborted = resolve));
    const upstream = await listen(
      createNodeHandler(async function* (input: RunAgentInput, { signal }) {
        yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        aborted();
      }),
    );
    const response = await post(await through(upstream, { idleTimeoutMs: 300 }), runInput(), "text/event-stream", { headers: { authorization: "Bearer t-alice" } });
    expect((await readEvents(response)).map((e) => (e.type === "RUN_ERROR" ? e.code : e.type))).toEqual(["RUN_STARTED", "upstream_idle"]);
    await agentStopped;
  });

  it("answers within firstByteTimeoutMs an upstream that sends 422 headers and then no body", async () => {
    const upstream = await listen((_req, res) => {
      res.writeHead(422, { "content-type": "application/json" });
      res.flushHeaders();
    });
    const asked = Date.now();
    const response = await post(await through(upstream, { firstByteTimeoutMs: 300 }), runInput(), "text/event-stream", { headers: { authorization: "Bearer t-alice" } });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ error: "the upstream agent refused the request" });
    // Well before the next bound a client would meet (the test's own timeout).
    expect(Date.now() - asked).toBeLessThan(10_000);
  });
});
