export const IE_TEXT = 'Internet Explorer is not supported. Please use Chrome, Firefox or Edge.';

/** Internet Explorer 11 says `Trident/`, older ones `MSIE `. */
export const isInternetExplorer = (userAgent: string): boolean =>
  userAgent.includes('Trident/') || userAgent.includes('MSIE ');

/** The layout switches to mobile at this width and below (rules §9). */
export const MOBILE_QUERY = '(max-width:480px)';
