// Moved to common/ (the settings schemas below the middleware use it); kept here for existing importers.
export { isLoopbackHost } from "../common/isLoopbackHost.js";
