// decodeEvent accepts most decoded events without re-running the schema (src/binary/accept.ts).
// These properties hold it to the schema: whatever it accepts, parseEvent accepts unchanged, and
// whatever well-formed bytes carry an event the schema rejects, it rejects too.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AguiWireError, ValidationError, decodeEvent, encodeEvent, parseEvent } from "../../src/index.js";
import { CORPUS } from "../fixtures/corpus.js";

const small = CORPUS.filter(({ event }) => JSON.stringify(event).length < 4000).map(({ event }) => encodeEvent(event).slice());

describe("decodeEvent's fast acceptance agrees with the schema", () => {
  it("on every corpus event", () => {
    for (const bytes of small) {
      const decoded = decodeEvent(bytes);
      expect(parseEvent(decoded)).toEqual(decoded);
    }
  });

  it("on corrupted bytes: an accepted event is one parseEvent accepts unchanged", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...small),
        fc.array(fc.tuple(fc.nat(), fc.nat(7)), { minLength: 1, maxLength: 3 }),
        (original, flips) => {
          const bytes = original.slice();
          for (const [at, bit] of flips) bytes[at % bytes.length]! ^= 1 << bit;
          let decoded;
          try {
            decoded = decodeEvent(bytes);
          } catch (err) {
            expect(err).toBeInstanceOf(AguiWireError);
            return;
          }
          expect(parseEvent(decoded)).toEqual(decoded);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("rejects, as the schema does, the rule breaks the wire cannot express", () => {
    // Events the schema rejects, written by hand as protobuf (BaseEvent always present).
    const cases: [string, number[]][] = [
      // TEXT_MESSAGE_CONTENT with an empty delta
      ["delta", [0x12, 0x07, 0x0a, 0x02, 0x08, 0x01, 0x12, 0x01, 0x6d]],
      // TEXT_MESSAGE_START with role "robot"
      ["role", [0x0a, 0x0c, 0x0a, 0x00, 0x12, 0x01, 0x6d, 0x1a, 0x05, 0x72, 0x6f, 0x62, 0x6f, 0x74]],
      // CUSTOM without a value (1.0 requires one; null is a value)
      ["value", [0x5a, 0x04, 0x0a, 0x02, 0x08, 0x0a]],
      // TEXT_MESSAGE_END whose rawEvent is a JSON null (1.0: absent or a value)
      ["rawEvent", [0x1a, 0x0b, 0x0a, 0x06, 0x08, 0x02, 0x1a, 0x02, 0x08, 0x00, 0x12, 0x01, 0x6d]],
      // ACTIVITY_SNAPSHOT without content
      ["content", [0xba, 0x01, 0x04, 0x0a, 0x02, 0x08, 0x16]],
      // REASONING_MESSAGE_START without its role "reasoning"
      ["role", [0xd2, 0x01, 0x04, 0x0a, 0x02, 0x08, 0x19]],
      // REASONING_ENCRYPTED_VALUE with subtype "x"
      ["subtype", [0xfa, 0x01, 0x07, 0x0a, 0x02, 0x08, 0x1e, 0x1a, 0x01, 0x78]],
      // STATE_SNAPSHOT without a snapshot
      ["snapshot", [0x3a, 0x04, 0x0a, 0x02, 0x08, 0x06]],
      // RAW without an event
      ["event", [0x52, 0x04, 0x0a, 0x02, 0x08, 0x09]],
    ];
    for (const [field, bytes] of cases) {
      const message = new Uint8Array(bytes);
      const err = (() => {
        try {
          decodeEvent(message);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err, field).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).code).toBe("invalid_event");
      expect((err as ValidationError).message).toContain(field);
    }
  });
});
