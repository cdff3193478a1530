mod events;
mod store;
