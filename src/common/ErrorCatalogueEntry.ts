/** One code of an error catalogue: the HTTP status it is answered with and when that happens. */
export interface ErrorCatalogueEntry {
  readonly status: number;
  /** One line for the docs' table: what the client did (or what failed), and which `details` say more. */
  readonly when: string;
}
