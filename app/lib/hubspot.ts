/** The HubSpot properties a followed search may filter on, and its conditions (decision 083): the form offers these only. */
export const HUBSPOT_SEARCH_PROPERTIES = ["firstname", "lastname", "email", "company", "city", "lifecyclestage", "jobtitle"] as const;
export const HUBSPOT_SEARCH_OPERATORS = ["EQ", "CONTAINS_TOKEN", "HAS_PROPERTY"] as const;
