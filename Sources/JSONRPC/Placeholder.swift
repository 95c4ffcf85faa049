import Jansson
