/**
 * agui-wire/client: HttpAgent, AbstractAgent and run verification.
 *
 * Not built yet: this entry exists so that the package's export map is stable.
 *
 * @module
 */
export {};
