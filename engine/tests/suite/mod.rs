mod lang;
