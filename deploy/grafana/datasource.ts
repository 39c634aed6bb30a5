// The Prometheus datasource reference every panel, query and variable of the dashboard uses. Runs in Node.

/** The datasource every panel and query uses: a dashboard input on import, a datasource variable when provisioned. */
export const DATASOURCE = { type: 'prometheus', uid: '${DS_PROMETHEUS}' } as const;
