/**
 * The pure parts of the handlers' cross-site defences: the Content-Type check and the CORS
 * functions, from header values to header values.
 */
import { describe, expect, it } from "vitest";
import { contentTypeProblem } from "../../src/server/content-type.js";
import {
  allowedOrigin,
  isPreflight,
  normalizeOrigin,
  parseHeaderNames,
  preflight,
  resolveCors,
  responseCorsHeaders,
  withHeaders,
  type ResolvedCors,
} from "../../src/server/cors.js";

const PREFLIGHT_VARY = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers";

describe("contentTypeProblem", () => {
  it.each(["application/json", "Application/JSON", "APPLICATION/JSON", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", " application/json ; x=y"])(
    "accepts %j",
    (type) => {
      expect(contentTypeProblem(type)).toBeUndefined();
    },
  );

  it.each([
    ["text/plain", 'unsupported Content-Type "text/plain": expected application/json'],
    ["text/plain;charset=UTF-8", 'unsupported Content-Type "text/plain;charset=UTF-8": expected application/json'],
    ["application/x-www-form-urlencoded", 'unsupported Content-Type "application/x-www-form-urlencoded": expected application/json'],
    ["multipart/form-data; boundary=x", 'unsupported Content-Type "multipart/form-data; boundary=x": expected application/json'],
    ["application/vnd.example+json", 'unsupported Content-Type "application/vnd.example+json": expected application/json'],
    ["application/json, text/plain", 'unsupported Content-Type "application/json, text/plain": expected application/json'],
    ["application/jsonx", 'unsupported Content-Type "application/jsonx": expected application/json'],
    ["", 'unsupported Content-Type "": expected application/json'],
  ])("refuses %j", (type, message) => {
    expect(contentTypeProblem(type)).toBe(message);
  });

  it("refuses a missing header, saying so", () => {
    expect(contentTypeProblem(null)).toBe("missing Content-Type: expected application/json");
    expect(contentTypeProblem(undefined)).toBe("missing Content-Type: expected application/json");
  });

  it("clips a long value in the message", () => {
    const message = contentTypeProblem(`text/plain; x=${"a".repeat(10_000)}`)!;
    expect(message.length).toBeLessThan(200);
    expect(message).toMatch(/^unsupported Content-Type "text\/plain; x=a+…": expected application\/json$/);
  });
});

describe("normalizeOrigin", () => {
  it.each([
    ["https://app.example.com", "https://app.example.com"],
    ["https://app.example.com/", "https://app.example.com"],
    ["HTTPS://App.Example.COM", "https://app.example.com"],
    ["https://app.example.com:443", "https://app.example.com"],
    ["http://localhost:5173/", "http://localhost:5173"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["http://[::1]:3000", "http://[::1]:3000"],
    ["https://bücher.example", "https://xn--bcher-kva.example"],
    ["capacitor://localhost", "capacitor://localhost"],
    ["  https://app.example.com  ", "https://app.example.com"],
  ])("normalises %j to %j", (input, expected) => {
    expect(normalizeOrigin(input)).toBe(expected);
  });

  it.each([
    ["app.example.com", /found "app\.example\.com"$/],
    ["https://*.example.com", /patterns are not supported/],
    ["https://app.example.com/agent", /with a path \(\/agent\)$/],
    ["https://app.example.com/?x=1", /with a query \(\?x=1\)$/],
    ["https://app.example.com/#x", /with a fragment \(#x\)$/],
    ["https://user:pw@app.example.com", /with user info$/],
    ["null", /"null", which any sandboxed page can send$/],
    ["mailto:someone@example.com", /with no host$/],
    ["", /found ""$/],
  ])("refuses %j with a RangeError saying why", (input, message) => {
    expect(() => normalizeOrigin(input, "cors.origins[0]")).toThrow(RangeError);
    expect(() => normalizeOrigin(input, "cors.origins[0]")).toThrow(message);
    expect(() => normalizeOrigin(input, "cors.origins[0]")).toThrow(/^cors\.origins\[0\] must be an origin such as "https:\/\/app\.example\.com"/);
  });
});

describe("resolveCors", () => {
  it("is off without the option", () => {
    expect(resolveCors(undefined)).toBeUndefined();
  });

  it("normalises origins and applies defaults", () => {
    expect(resolveCors({ origins: ["HTTPS://App.Example.com/", "http://localhost:5173"] })).toEqual({
      anyOrigin: false,
      origins: new Set(["https://app.example.com", "http://localhost:5173"]),
      credentials: false,
      maxAgeSeconds: undefined,
    });
    expect(resolveCors({ origins: ["https://a.example"], credentials: true, maxAgeSeconds: 600 })).toMatchObject({ credentials: true, maxAgeSeconds: 600 });
    expect(resolveCors({ origins: ["*"] })).toMatchObject({ anyOrigin: true, origins: new Set() });
  });

  it.each([
    [null, TypeError, "cors must be an object { origins, credentials?, maxAgeSeconds? }, found null"],
    [["https://a.example"], TypeError, "cors must be an object { origins, credentials?, maxAgeSeconds? }, found an array"],
    ["https://a.example", TypeError, "cors must be an object { origins, credentials?, maxAgeSeconds? }, found string"],
    [{ origin: ["https://a.example"] }, TypeError, 'cors has no option "origin": expected origins, credentials or maxAgeSeconds'],
    [{ origins: ["https://a.example"], maxAge: 5 }, TypeError, 'cors has no option "maxAge": expected origins, credentials or maxAgeSeconds'],
    [{ origins: "https://a.example" }, TypeError, "cors.origins must be an array of origins, found string"],
    [{}, TypeError, "cors.origins must be an array of origins, found undefined"],
    [{ origins: [] }, RangeError, "cors.origins must list at least one origin (leave cors out to turn CORS off)"],
    [{ origins: ["https://a.example", 7] }, TypeError, "cors.origins[1] must be a string, found number"],
    [{ origins: ["https://a.example/app"] }, RangeError, 'cors.origins[0] must be an origin such as "https://app.example.com", found "https://a.example/app" with a path (/app)'],
    [{ origins: ["https://a.example"], credentials: "yes" }, TypeError, "cors.credentials must be a boolean, found string"],
    [{ origins: ["https://a.example"], maxAgeSeconds: "60" }, TypeError, "cors.maxAgeSeconds must be a number, found string"],
    [{ origins: ["https://a.example"], maxAgeSeconds: -1 }, RangeError, "cors.maxAgeSeconds must be a whole number of seconds, 0 or more, found -1"],
    [{ origins: ["https://a.example"], maxAgeSeconds: 1.5 }, RangeError, "cors.maxAgeSeconds must be a whole number of seconds, 0 or more, found 1.5"],
    [{ origins: ["https://a.example"], maxAgeSeconds: Infinity }, RangeError, "cors.maxAgeSeconds must be a whole number of seconds, 0 or more, found Infinity"],
    [{ origins: ["*", "https://a.example"] }, RangeError, 'cors.origins: "*" allows every origin and must be the only entry'],
    [{ origins: ["*"], credentials: true }, RangeError, 'cors.origins ["*"] cannot be combined with credentials: true (browsers refuse credentials with a wildcard): list the origins'],
  ])("refuses %j", (value, type, message) => {
    expect(() => resolveCors(value)).toThrow(type);
    expect(() => resolveCors(value)).toThrow(message);
  });
});

const listed: ResolvedCors = resolveCors({ origins: ["https://app.example.com", "http://localhost:5173"], credentials: true, maxAgeSeconds: 600 })!;
const plain: ResolvedCors = resolveCors({ origins: ["https://app.example.com"] })!;
const any: ResolvedCors = resolveCors({ origins: ["*"] })!;

describe("allowedOrigin", () => {
  it("answers a listed origin with the origin as sent, case aside", () => {
    expect(allowedOrigin(listed, "https://app.example.com")).toBe("https://app.example.com");
    expect(allowedOrigin(listed, "https://APP.example.com")).toBe("https://APP.example.com");
    expect(allowedOrigin(listed, "http://localhost:5173")).toBe("http://localhost:5173");
  });

  it.each(["https://evil.example", "http://app.example.com", "https://app.example.com:8443", "https://app.example.com.evil.example", "null", "", null, undefined])(
    "allows nothing to %j",
    (origin) => {
      expect(allowedOrigin(listed, origin)).toBeUndefined();
    },
  );

  it('answers "*" to any origin when every origin is allowed, and nothing without an Origin', () => {
    expect(allowedOrigin(any, "https://evil.example")).toBe("*");
    expect(allowedOrigin(any, "null")).toBe("*");
    expect(allowedOrigin(any, undefined)).toBeUndefined();
  });
});

describe("isPreflight", () => {
  it("is OPTIONS with Origin and Access-Control-Request-Method", () => {
    expect(isPreflight("OPTIONS", "https://a.example", "POST")).toBe(true);
    expect(isPreflight("OPTIONS", "https://a.example", null)).toBe(false);
    expect(isPreflight("OPTIONS", undefined, "POST")).toBe(false);
    expect(isPreflight("POST", "https://a.example", "POST")).toBe(false);
  });
});

describe("parseHeaderNames", () => {
  it("lower-cases, trims and de-duplicates", () => {
    expect(parseHeaderNames("content-type,Authorization, X-Api-Key ,,content-type")).toEqual(["content-type", "authorization", "x-api-key"]);
    expect(parseHeaderNames(null)).toEqual([]);
    expect(parseHeaderNames("")).toEqual([]);
  });

  it("refuses what is not a header name", () => {
    expect(parseHeaderNames("content-type, x y")).toBeUndefined();
    expect(parseHeaderNames("a:b")).toBeUndefined();
  });
});

describe("preflight", () => {
  it("allows a listed origin to POST with the headers it asks for", () => {
    expect(preflight(listed, { origin: "https://app.example.com", requestMethod: "POST", requestHeaders: "content-type,last-event-id,x-api-key" })).toEqual({
      ok: true,
      headers: {
        "Access-Control-Allow-Origin": "https://app.example.com",
        "Access-Control-Allow-Methods": "POST",
        "Access-Control-Allow-Headers": "content-type, last-event-id, x-api-key",
        "Access-Control-Allow-Credentials": "true",
        "Access-Control-Max-Age": "600",
        Vary: PREFLIGHT_VARY,
      },
    });
  });

  it("sends no credentials, max-age or allowed headers it was not asked for", () => {
    expect(preflight(plain, { origin: "https://app.example.com", requestMethod: "POST", requestHeaders: undefined })).toEqual({
      ok: true,
      headers: { "Access-Control-Allow-Origin": "https://app.example.com", "Access-Control-Allow-Methods": "POST", Vary: PREFLIGHT_VARY },
    });
    expect(preflight(any, { origin: "https://x.example", requestMethod: "POST", requestHeaders: "content-type" }).headers["Access-Control-Allow-Origin"]).toBe("*");
  });

  it("refuses another origin, another method and a malformed header list, each saying why", () => {
    expect(preflight(listed, { origin: "https://evil.example", requestMethod: "POST", requestHeaders: "content-type" })).toEqual({
      ok: false,
      message: 'CORS preflight refused: origin "https://evil.example" is not allowed',
      headers: { Vary: PREFLIGHT_VARY },
    });
    expect(preflight(listed, { origin: "https://app.example.com", requestMethod: "PUT", requestHeaders: null })).toEqual({
      ok: false,
      message: 'CORS preflight refused: method "PUT" is not allowed: expected POST',
      headers: { Vary: PREFLIGHT_VARY },
    });
    expect(preflight(listed, { origin: "https://app.example.com", requestMethod: "POST", requestHeaders: "content-type, a b" })).toEqual({
      ok: false,
      message: 'CORS preflight refused: Access-Control-Request-Headers "content-type, a b" is not a list of header names',
      headers: { Vary: PREFLIGHT_VARY },
    });
  });
});

describe("responseCorsHeaders", () => {
  it("allows a listed origin, with credentials when set", () => {
    expect(responseCorsHeaders(listed, "https://app.example.com")).toEqual({
      "Access-Control-Allow-Origin": "https://app.example.com",
      "Access-Control-Allow-Credentials": "true",
      Vary: "Origin",
    });
    expect(responseCorsHeaders(plain, "https://app.example.com")).toEqual({ "Access-Control-Allow-Origin": "https://app.example.com", Vary: "Origin" });
  });

  it("gives only Vary: Origin to another origin and to a request without one", () => {
    expect(responseCorsHeaders(listed, "https://evil.example")).toEqual({ Vary: "Origin" });
    expect(responseCorsHeaders(listed, null)).toEqual({ Vary: "Origin" });
  });
});

describe("withHeaders", () => {
  it("merges Vary lists whatever their case, and replaces other headers", () => {
    const base = { "Content-Type": "text/event-stream", Vary: "Accept" };
    expect(withHeaders(base, { Vary: "Origin", "Access-Control-Allow-Origin": "https://a.example" })).toEqual({
      "Content-Type": "text/event-stream",
      Vary: "Accept, Origin",
      "Access-Control-Allow-Origin": "https://a.example",
    });
    expect(withHeaders({ vary: "accept, origin" }, { Vary: "Origin, Access-Control-Request-Method" })).toEqual({ vary: "accept, origin, Access-Control-Request-Method" });
    expect(withHeaders({ "content-type": "a" }, { "Content-Type": "b" })).toEqual({ "Content-Type": "b" });
    expect(base).toEqual({ "Content-Type": "text/event-stream", Vary: "Accept" });
  });
});
