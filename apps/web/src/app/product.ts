/** The product's display name; the one place it is spelled out. */
export const PRODUCT_NAME = 'ProxyMarket';
