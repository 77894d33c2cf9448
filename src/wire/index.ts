/**
 * The protobuf wire runtime the generated codecs (src/gen/agui) are written against: the reader and
 * writer, JSON values as `google.protobuf.Value`, the element checks run as repeated fields are
 * read, and the adapters where the JSON form of a message differs from its wire form.
 *
 * @module
 */
export { fromWireMessage, fromWireRunAgentInput, fromWireRunErrorEvent, fromWireRunFinishedEvent, fromWireSubagentFinishedEvent, fromWireToolCallResultEvent, toWireMessage, toWireRunAgentInput, toWireRunErrorEvent, toWireRunFinishedEvent, toWireSubagentFinishedEvent, toWireToolCallResultEvent } from "./adapters.js";
export { checkContentPart, checkContext, checkInterrupt, checkJsonPatchOperation, checkMessage, checkResumeEntry, checkTokenUsage, checkTool, checkToolCall } from "./element-checks.js";
export { jsonValuesWritten, readStruct, readValue, resetJsonValuesWritten, writeStructField, writeValue, writeValueField } from "./json-value.js";
export { NOT_JSON } from "./json-writer.js";
export { enumName, malformed, Reader, skipField } from "./reader.js";
export { closeSmallFrame, openSmallFrame, putSmallString, SMALL_STRING_UNITS } from "./small-frame.js";
export { beginWrite, Writer } from "./writer.js";
