export { encodeBase64Json, decodeBase64Json, Base64JsonError } from "./protocol/base64Json.js";
