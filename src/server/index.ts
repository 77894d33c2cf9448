/**
 * agui-wire/server: agent handlers for fetch-style and Node servers.
 *
 * Not built yet: this entry exists so that the package's export map is stable.
 *
 * @module
 */
export {};
