// Moved to common/ (the settings schemas below the middleware use it); kept here for existing importers.
export { isHttpsOrLoopbackUrl } from "../common/isHttpsOrLoopbackUrl.js";
